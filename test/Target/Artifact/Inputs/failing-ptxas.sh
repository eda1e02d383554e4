#!/bin/sh
# A stand-in for CUDA's ptxas that rejects the PTX, as ptxas does for invalid PTX.
echo "ptxas $5, line 1; error   : Unknown directive made up by the test" >&2
echo "ptxas fatal   : Ptx assembly aborted due to errors" >&2
exit 255
