/* passes/schedule/linear.c - STUB: owned by a template helper. */
#include "korch/diag.h"
#include "passes/schedule/schedule.h"

kr_status ks_schedule_linear(ks_kernel *k) { return kr_op_emit_error(k->func, "schedule: the linear template is not built yet"); }
