/* dialects/op/canonicalize.c - canonicalization patterns of the op dialect. */
#include "dialects/op/op_impl.h"

const kr_pattern kr_op_canonical_patterns[] = {{0}};
const unsigned kr_op_num_canonical_patterns = 0;
