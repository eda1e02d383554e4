/* tools/support/npy.h - NumPy .npy files (format versions 1.0-3.0, C order) as kr_tensors, for
 * korch-interp, korch-translate --bind-input and the tests.  Spec: numpy/lib/format.py
 * ("NEP 1"): magic "\x93NUMPY", version, little-endian header length, a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }, then the raw data.
 *
 * dtypes: <f2 <f4 <f8 |b1 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 (and '=' / big-endian '>' variants,
 * byte-swapped on read); bfloat16 has no NumPy code and is written as <u2 raw bits only if asked. */
#ifndef KORCH_TOOLS_SUPPORT_NPY_H
#define KORCH_TOOLS_SUPPORT_NPY_H

#include "korch/interp.h"

/* Reads `path` into *out (an owned tensor; free it with kr_tensor_free).  Errors (missing file,
 * bad magic, unsupported dtype, fortran_order, truncated data) are reported as diagnostics at
 * loc("path") through ctx and return KR_FAILURE. */
kr_status kr_npy_read(kr_context *ctx, const char *path, kr_tensor *out);
/* Writes `t` to `path` atomically (temporary file + rename; on failure the old file is left).
 * Errors (unsupported element type such as bf16, I/O) are reported through ctx. */
kr_status kr_npy_write(kr_context *ctx, const char *path, const kr_tensor *t);

#endif
