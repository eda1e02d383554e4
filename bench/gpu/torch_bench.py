#!/usr/bin/env python3
"""bench/gpu/torch_bench.py - times the shared models in PyTorch on the GPU (eager and
torch.compile) for bench/gpu/run.sh; prints numbers, never pass/fail.

    python3 torch_bench.py OUT_DIR MODELS_FILE RESULT_FILE [--iters N] [--budget S]

The models are rebuilt from their PyTorch definitions (OUT_DIR/torch/export_models.py, a copy
of ../shared/models/export_models.py) exactly as that script builds them before exporting:
torch.manual_seed(0), build, randomize_norms(seed=1), eval().  The weights therefore come from
the seeds, not from the ONNX file; whether this PyTorch rebuilds the same weights is checked by
running the rebuilt model on the CPU on the model's input and comparing with the reference output
(`rebuild rel` column: max|y - ref| / max|ref|; ~1e-6 means identical weights, O(1) means this
PyTorch/torchvision draws different weights and the timings are of a same-shaped model).

TF32 is off (torch.backends.cuda.matmul.allow_tf32 = False, torch.backends.cudnn.allow_tf32 =
False): korch computes in float32, and TF32 would compare a 10-bit-mantissa matmul with it.
Times: CUDA events around each run after warm-up, median of N (default 50) runs, milliseconds.

MODELS_FILE lines: `name base` (base: the PyTorch model, NAME without .folded; inputs
OUT_DIR/models/NAME/input_K.npy, reference OUT_DIR/models/NAME/output_0.npy).
RESULT_FILE lines: `name eager_ms compile_ms rebuild_rel note` ('-' where not measured).
"""
import ast
import os
import struct
import sys
import time
import types

sys.dont_write_bytecode = True


def read_npy(path, torch):
    """A minimal .npy reader (format 1.0-3.0, little-endian float32/int64, C order), so that
    NumPy is not required on the GPU machine."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    major = data[6]
    if major == 1:
        hlen = struct.unpack("<H", data[8:10])[0]
        off = 10
    else:
        hlen = struct.unpack("<I", data[8:12])[0]
        off = 12
    hdr = ast.literal_eval(data[off:off + hlen].decode("latin1"))
    if hdr["fortran_order"]:
        raise ValueError(f"{path}: Fortran order")
    dtypes = {"<f4": torch.float32, "<i8": torch.int64, "<f8": torch.float64, "<i4": torch.int32}
    if hdr["descr"] not in dtypes:
        raise ValueError(f"{path}: dtype {hdr['descr']}")
    body = bytearray(data[off + hlen:])
    t = torch.frombuffer(body, dtype=dtypes[hdr["descr"]]) if body else torch.empty(0)
    return t.reshape(hdr["shape"]).clone()


def stub_missing(name):
    """export_models.py imports onnx (and torchvision) at the top; only the export path needs
    onnx.  A missing package becomes an empty module so that the model classes still load."""
    try:
        __import__(name)
        return True
    except Exception:
        sys.modules[name] = types.ModuleType(name)
        return False


def time_gpu(torch, fn, inputs, iters, warmup=10):
    with torch.no_grad():
        for _ in range(warmup):
            fn(*inputs)
        torch.cuda.synchronize()
        times = []
        for _ in range(iters):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            fn(*inputs)
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main():
    args = sys.argv[1:]
    iters, budget = 50, 300.0
    if "--iters" in args:
        i = args.index("--iters")
        iters = int(args[i + 1])
        del args[i:i + 2]
    if "--budget" in args:
        i = args.index("--budget")
        budget = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out_dir, models_file, result_file = args
    start = time.time()
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"device {torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none'}; "
          f"TF32 off (torch.backends.cuda.matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32}, "
          f"torch.backends.cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}); float32, eval mode, "
          f"median of {iters} runs after 10 warm-up runs (CUDA events)", flush=True)
    if not torch.cuda.is_available():
        print("torch_bench: torch.cuda.is_available() is False: no PyTorch timings", flush=True)
        return 1
    has_onnx = stub_missing("onnx")
    has_tv = stub_missing("torchvision")
    stub_missing("numpy")
    if not has_onnx:
        print("torch_bench: note: no onnx package (only the export needs it)")
    sys.path.insert(0, os.path.join(out_dir, "torch"))
    try:
        import export_models as em
    except Exception as e:
        print(f"torch_bench: cannot load export_models.py with this PyTorch: {type(e).__name__}: {e}", flush=True)
        return 1
    builders = {name: (build, ins) for (name, build, ins, _, _) in em.DEV}
    has_compile = hasattr(torch, "compile")
    results = []
    with open(models_file) as f:
        rows = [line.split() for line in f if line.strip()]
    done = {}
    for name, base in rows:
        note = []
        eager = comp = rel = "-"
        if base in done:  # NAME.folded is the same PyTorch model as NAME: measured once
            results.append((name,) + done[base][1:4] + (f"same PyTorch model as {done[base][0]}",))
            continue
        if base not in builders:
            results.append((name, eager, comp, rel, "no PyTorch definition"))
            continue
        if base == "mobilenet_v2" and not has_tv:
            results.append((name, eager, comp, rel, "torchvision missing"))
            continue
        build, ins = builders[base]
        try:
            torch.manual_seed(0)
            model = build()
            em.randomize_norms(model, seed=1)
            model.eval()
            mdir = os.path.join(out_dir, "models", name)
            inputs = [read_npy(os.path.join(mdir, f"input_{k}.npy"), torch) for k in range(len(ins))]
            ref = read_npy(os.path.join(mdir, "output_0.npy"), torch)
            with torch.no_grad():
                y = model(*inputs)
            y = y[0] if isinstance(y, (tuple, list)) else y
            rel = f"{float((y - ref).abs().max() / ref.abs().max()):.1e}"
            model = model.cuda()
            gin = [t.cuda() for t in inputs]
            eager = f"{time_gpu(torch, model, gin, iters):.3f}"
            if not has_compile:
                note.append("torch.compile missing (torch < 2)")
            elif time.time() - start > budget:
                note.append(f"compile skipped: PyTorch budget {budget:.0f} s spent")
            else:
                try:
                    t0 = time.time()
                    cm = torch.compile(model)
                    with torch.no_grad():
                        cm(*gin)
                    torch.cuda.synchronize()
                    ct = time.time() - t0
                    comp = f"{time_gpu(torch, cm, gin, iters):.3f}"
                    note.append(f"compiled in {ct:.0f} s")
                except Exception as e:  # a failing inductor is a number we lack, not an error
                    note.append(f"torch.compile failed: {type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}")
        except Exception as e:
            note.append(f"{type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}")
        results.append((name, eager, comp, rel, "; ".join(note)))
        done[base] = results[-1]
        print(f"torch {name}: eager {eager} ms, compile {comp} ms, rebuild rel {rel} {'; '.join(note)}", flush=True)
    with open(result_file, "w") as f:
        for r in results:
            f.write(" ".join(r[:4]) + " " + (r[4].replace("\n", " ") or "-") + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
