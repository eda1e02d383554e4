#!/usr/bin/env bash
# scripts/setup.sh - installs every Debian package korch needs (Debian 12 "bookworm"; root, or
# sudo when not root).  Some are for later stages of the pipeline (CBC, ONNX, libxml2, LLVM).
set -euo pipefail

packages=(
  cmake ninja-build gcc pkg-config python3   # build
  check                                      # C unit tests
  clang-19 libclang-rt-19-dev                # libFuzzer + sanitizer runtimes for the fuzz build
  llvm-19-dev llvm-19-tools                  # LLVM-C (NVPTX backend); FileCheck, not, count, lit
  mlir-19-tools                              # mlir-opt: the reference the text format is checked against
  libxml2-dev                                # runtime plan files
  coinor-libcbc-dev                          # the BLP solver of kernel orchestration
  protobuf-c-compiler libprotobuf-c-dev      # ONNX import
  libonnx-dev libonnx-testdata               # onnx.proto and the ONNX conformance test data
  libopenblas-dev                            # BLAS for the interpreter's MatMul/Gemm/Conv
)

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${packages[@]}"
