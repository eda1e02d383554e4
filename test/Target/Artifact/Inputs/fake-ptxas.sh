#!/bin/sh
# A stand-in for CUDA's ptxas (invoked as `ptxas -v -arch=sm_XX -o /dev/null FILE.ptx`): it
# reports made-up, distinct figures for the two kernels of Inputs/tiny.kir in ptxas -v's format,
# so the tests can check that each kernel gets its own figures without CUDA installed.  It also
# checks its arguments, so a change of the calling convention fails the test.
[ "$1" = "-v" ] || { echo "fake ptxas: expected -v first, got '$1'" >&2; exit 2; }
case "$2" in -arch=sm_*) ;; *) echo "fake ptxas: expected -arch=sm_XX, got '$2'" >&2; exit 2 ;; esac
[ -s "$5" ] || { echo "fake ptxas: no PTX file '$5'" >&2; exit 2; }
arch=${2#-arch=}
cat >&2 <<REPORT
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'main_k0' for '$arch'
ptxas info    : Function properties for main_k0
    24 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 41 registers, used 0 barriers, 360 bytes cmem[0]
ptxas info    : Compiling entry function 'main_k1' for '$arch'
ptxas info    : Function properties for main_k1
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 23 registers, used 1 barriers, 128 bytes smem, 352 bytes cmem[0]
REPORT
