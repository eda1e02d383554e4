/* korch/korch.h - the umbrella header of libkorch. */
#ifndef KORCH_KORCH_H
#define KORCH_KORCH_H
#include "korch/adt.h"
#include "korch/arena.h"
#include "korch/asm.h"
#include "korch/diag.h"
#include "korch/dialect.h"
#include "korch/ir.h"
#include "korch/ostream.h"
#include "korch/pass.h"
#include "korch/rewrite.h"
#define KORCH_VERSION_MAJOR 0
#define KORCH_VERSION_MINOR 1
#define KORCH_VERSION_PATCH 0
#define KORCH_VERSION "0.1.0"
#endif
