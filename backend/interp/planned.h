/* backend/interp/planned.h - the interpreter's planned level (planned.c) and the one entry of
 * the executor (interp.c) it needs.  Private to backend/interp. */
#ifndef KORCH_BACKEND_INTERP_PLANNED_H
#define KORCH_BACKEND_INTERP_PLANNED_H

#include "backend/interp/simt.h"
#include "korch/interp.h"

/* Runs planned host function `func` (kr_plan_is_planned) through one arena and one weights
 * region laid out by its plan (kr_plan_read checks the plan first; its errors are diagnostics).
 * inputs/outputs as for kr_interp_run; outputs are fresh owned tensors copied from their ranges. */
kr_status kr__interp_run_planned(kr_op *func, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                                 unsigned num_outputs, simt_session *s);

/* interp.c: runs a (tensor-form) kernel.func or func.func `fn` as a callee, one call level down. */
kr_status kr__interp_run_callee(kr_op *fn, const kr_tensor *inputs, unsigned num_inputs, kr_tensor *outputs,
                                unsigned num_outputs, simt_session *s);

#endif
