/* passes/schedule/lower_task_mappings.c - STUB: owned by the task-mapping helper. */
#include "passes/pass_impl.h"
#include "passes/schedule/schedule.h"

static kr_status lower_run(kr_op *op, const void *options, kr_pass_run *run) {
  (void)op; (void)options; (void)run;
  return KR_SUCCESS;
}

const kr_pass_def kr_lower_task_mappings_pass = {
  .argument = "lower-task-mappings",
  .summary = "Rewrite every kernel.map into index arithmetic and kernel.for loops (Hidet task mappings)",
  .run = lower_run,
  .display_name = "LowerTaskMappings",
};
