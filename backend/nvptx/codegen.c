/* backend/nvptx/codegen.c - the NVPTX driver: scheduled module -> LLVM module (lower.c) ->
 * libdevice linked, non-kernels internalized, optimised -> LLVM IR or PTX text (issue 7,
 * docs/Codegen.md).  Everything goes through the LLVM-C API of LLVM 19 (the llvm-c headers).
 *
 * Determinism: one fresh LLVMContext per call, no timing or host data in the output; the LLVM
 * passes are deterministic for a given input and options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "backend/nvptx/nvptx_impl.h"
#include "korch/diag.h"
#include "korch/kernel.h"
#include "korch/nvptx.h"
#include "korch/pass.h"
#include "korch/target.h"

/* The libdevice of the CUDA toolkit (CUDA "libdevice User's Guide": one bitcode library for all
 * sm_XX since CUDA 9, libdevice.10.bc). */
#define KR_NVPTX_LIBDEVICE "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"
#define KR_NVPTX_TRIPLE "nvptx64-nvidia-cuda"
/* PTX ISA 8.0 (CUDA 12.0): new enough for every sm_80..sm_90 feature the lowering uses
 * (sm_90 needs PTX >= 7.8, PTX ISA "Release Notes"), old enough that any CUDA 12 driver JITs
 * it; LLVM 19's NVPTX backend knows ptx60..ptx85 (llc -march=nvptx64 -mattr=help) and CUDA 13's
 * ptxas accepts up to PTX 9.0. */
#define KR_NVPTX_FEATURES "+ptx80"

kr_nvptx_options kr_nvptx_default_options(void) {
  return (kr_nvptx_options){.gpu_arch = NULL, .libdevice = NULL, .opt_level = 3};
}

/* The architectures the code generator is tested for (issue 7): Ampere, Ada and Hopper. */
static bool known_arch(const char *a) {
  static const char *const archs[] = {"sm_80", "sm_86", "sm_89", "sm_90"};
  for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
    if (!strcmp(a, archs[i])) return true;
  return false;
}

/* LLVM reports some failures (bitcode, linking, codegen) through the context's diagnostic
 * handler; without one it prints them and, for errors, exits the process
 * (llvm/IR/LLVMContext.cpp, LLVMContext::diagnose).  This handler keeps the first error for a
 * korch diagnostic and drops warnings and remarks. */
typedef struct llvm_diags {
  char *first_error;
} llvm_diags;

static void diag_handler(LLVMDiagnosticInfoRef info, void *user) {
  llvm_diags *d = user;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || d->first_error) return;
  char *msg = LLVMGetDiagInfoDescription(info);
  d->first_error = strdup(msg ? msg : "unknown LLVM error");
  LLVMDisposeMessage(msg);
}

/* Everything one emission owns; released by `release`. */
typedef struct codegen {
  kr_op *module;        /* the caller's module: diagnostics are reported at its location */
  kr_context *ctx;
  kr_op *lowered;       /* a clone with kernel.map lowered, or NULL when the input had none */
  LLVMContextRef llctx;
  LLVMModuleRef llmod;
  LLVMTargetMachineRef tm;
  llvm_diags diags;
} codegen;

static void release(codegen *cg) {
  if (cg->tm) LLVMDisposeTargetMachine(cg->tm);
  if (cg->llmod) LLVMDisposeModule(cg->llmod);
  if (cg->llctx) LLVMContextDispose(cg->llctx);
  if (cg->lowered) kr_op_erase(cg->lowered);
  free(cg->diags.first_error);
}

static kr_status fail(codegen *cg, const char *what, const char *detail) {
  if (cg->diags.first_error && !detail) detail = cg->diags.first_error;
  return kr_emit_error(cg->ctx, cg->module->loc, "nvptx: %s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

static kr_walk_result find_map(kr_op *op, void *user) {
  (void)user;
  return strcmp(op->name, KR_KERNEL_MAP_OP) ? KR_WALK_ADVANCE : KR_WALK_INTERRUPT;
}

/* lower.c wants kernel.map lowered (nvptx_impl.h).  The driver does it on a clone, so the
 * caller's module is left as it was (the header's promise: emission does not change the IR). */
static kr_status lower_task_mappings(codegen *cg, kr_op **out) {
  *out = cg->module;
  if (kr_op_walk(cg->module, KR_WALK_PRE_ORDER, find_map, NULL) != KR_WALK_INTERRUPT) return KR_SUCCESS;
  cg->lowered = kr_op_clone(cg->module, NULL);
  /* A tool that only translates (korch-translate) has not registered the passes. */
  static const char pass[] = "lower-task-mappings";
  if (!kr_context_lookup_pass(cg->ctx, pass, sizeof pass - 1) && KR_FAILED(kr_register_core_passes(cg->ctx)))
    return KR_FAILURE;
  kr_pass_manager *pm = kr_pass_manager_create(cg->ctx, "builtin.module");
  kr_status st = kr_pass_manager_parse_pipeline(pm, pass);
  if (!KR_FAILED(st)) st = kr_pass_manager_run(pm, cg->lowered);
  kr_pass_manager_destroy(pm);
  *out = cg->lowered;
  return st;
}

/* The architecture: the option, else the module's target (korch/target.h).  korch/nvptx.h;
 * used by the artifact writer too (it names the arch in model.plan.xml and runs ptxas for it). */
kr_status kr_nvptx_resolve_arch(kr_op *module, const kr_nvptx_options *options, char arch[16]) {
  kr_context *ctx = kr_op_context(module);
  if (options && options->gpu_arch) {
    snprintf(arch, 16, "%s", options->gpu_arch);
  } else {
    kr_target t;
    if (KR_FAILED(kr_target_of_module(module, &t))) return KR_FAILURE;
    snprintf(arch, 16, "%s", t.arch);
  }
  if (!known_arch(arch))
    return kr_emit_error(ctx, module->loc,
                         "nvptx: unsupported GPU architecture '%s' (expected sm_80, sm_86, sm_89 or sm_90)", arch);
  return KR_SUCCESS;
}

static kr_status create_target_machine(codegen *cg, const char *arch, int opt_level) {
  /* Only the NVPTX target is linked in (llvm-c/Target.h's per-target initializers). */
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(KR_NVPTX_TRIPLE, &target, &err)) {
    kr_status st = fail(cg, "no NVPTX target in this LLVM", err);
    LLVMDisposeMessage(err);
    return st;
  }
  LLVMCodeGenOptLevel level = opt_level <= 0   ? LLVMCodeGenLevelNone
                              : opt_level == 1 ? LLVMCodeGenLevelLess
                              : opt_level == 2 ? LLVMCodeGenLevelDefault
                                               : LLVMCodeGenLevelAggressive;
  cg->tm = LLVMCreateTargetMachine(target, KR_NVPTX_TRIPLE, arch, KR_NVPTX_FEATURES, level, LLVMRelocDefault,
                                   LLVMCodeModelDefault);
  if (!cg->tm) return fail(cg, "cannot create the NVPTX target machine", arch);
  return KR_SUCCESS;
}

/* The module's triple and data layout are the target machine's (the lowering may not know
 * them; libdevice must agree with them or the linker warns). */
static void set_target(LLVMModuleRef m, LLVMTargetMachineRef tm) {
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  char *dl = LLVMCopyStringRepOfTargetData(td);
  LLVMSetDataLayout(m, dl);
  LLVMSetTarget(m, KR_NVPTX_TRIPLE);
  LLVMDisposeMessage(dl);
  LLVMDisposeTargetData(td);
}

static bool calls_libdevice(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t n;
    const char *name = LLVMGetValueName2(f, &n);
    if (LLVMIsDeclaration(f) && n > 5 && !strncmp(name, "__nv_", 5)) return true;
  }
  return false;
}

/* Links libdevice when the module calls it, and only the part it calls.  libdevice's functions
 * read __nvvm_reflect ("__CUDA_FTZ", "__CUDA_ARCH"), which the NVPTX target's NVVMReflect pass
 * folds (libdevice User's Guide, "Basic Usage"); the module flag nvvm-reflect-ftz = 0 keeps
 * denormals (IEEE results, as the interpreter computes them).
 *
 * Speed: libdevice holds ~350 functions (~480 KB of bitcode); parsing all of it and running
 * O3 over it cost most of an emission.  The bitcode is opened lazily
 * (LLVMGetBitcodeModuleInContext2: bodies are read on demand) and its definitions get
 * linkonce_odr linkage before LLVMLinkModules2: LLVM's ModuleLinker links a linkonce definition
 * only when the destination refers to it, directly or through another linked function
 * (Linker/LinkModules.cpp, linkIfNeeded / addLazyFor), so only the called functions and what
 * they call are read and linked, as clang's -mlink-builtin-bitcode does with LinkOnlyNeeded.
 * The result is the same IR as a full link followed by dead-function elimination. */
static kr_status link_libdevice(codegen *cg, const char *path) {
  if (!calls_libdevice(cg->llmod)) return KR_SUCCESS;
  LLVMMemoryBufferRef buf;
  char *err = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &err)) {
    char what[512];
    snprintf(what, sizeof what, "cannot read libdevice '%s'", path);
    kr_status st = fail(cg, what, err);
    LLVMDisposeMessage(err);
    return st;
  }
  LLVMModuleRef lib = NULL;
  /* On success the lazy module owns the buffer (it reads function bodies from it later). */
  if (LLVMGetBitcodeModuleInContext2(cg->llctx, buf, &lib)) {
    char what[512];
    snprintf(what, sizeof what, "'%s' is not an LLVM bitcode file", path);
    return fail(cg, what, NULL);
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f)) {
    LLVMLinkage l = LLVMGetLinkage(f);
    if (l == LLVMExternalLinkage && !LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(lib); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetLinkage(g) == LLVMExternalLinkage && !LLVMIsDeclaration(g)) LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
  set_target(lib, cg->tm);
  if (LLVMLinkModules2(cg->llmod, lib)) return fail(cg, "linking libdevice failed", NULL);   /* lib is consumed */
  LLVMTypeRef i32 = LLVMInt32TypeInContext(cg->llctx);
  LLVMAddModuleFlag(cg->llmod, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", strlen("nvvm-reflect-ftz"),
                    LLVMValueAsMetadata(LLVMConstInt(i32, 0, false)));
  return KR_SUCCESS;
}

/* Internal linkage for every definition but the kernels (LLVMPTXKernelCallConv, llvm-c/Core.h),
 * so that the optimiser may inline and then drop them, as nvcc's -internalize does for libdevice. */
static void internalize(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetFunctionCallConv(f) != LLVMPTXKernelCallConv)
      LLVMSetLinkage(f, LLVMInternalLinkage);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g)) LLVMSetLinkage(g, LLVMInternalLinkage);
}

/* The new pass manager's standard pipelines (llvm/Passes/PassBuilder.h); with the target machine
 * the NVPTX callbacks (NVVMReflect, NVVMIntrRange, address-space inference) join them.  globaldce
 * drops what internalize made dead at -O0, where default<O0> would keep it. */
static kr_status optimise(codegen *cg, int opt_level) {
  char pipeline[64];
  if (opt_level <= 0)
    snprintf(pipeline, sizeof pipeline, "globaldce");
  else
    snprintf(pipeline, sizeof pipeline, "default<O%d>", opt_level > 3 ? 3 : opt_level);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(cg->llmod, pipeline, cg->tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (e) {
    char *msg = LLVMGetErrorMessage(e);
    kr_status st = fail(cg, "the LLVM optimiser failed", msg);
    LLVMDisposeErrorMessage(msg);
    return st;
  }
  return KR_SUCCESS;
}

/* Everything up to the optimised LLVM module. */
static kr_status build(codegen *cg, const kr_nvptx_options *options) {
  kr_nvptx_options o = options ? *options : kr_nvptx_default_options();
  char arch[16];
  if (KR_FAILED(kr_nvptx_resolve_arch(cg->module, &o, arch))) return KR_FAILURE;
  kr_op *input;
  if (KR_FAILED(lower_task_mappings(cg, &input))) return KR_FAILURE;
  cg->llctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(cg->llctx, diag_handler, &cg->diags);
  if (KR_FAILED(create_target_machine(cg, arch, o.opt_level))) return KR_FAILURE;
  cg->llmod = kr_nvptx_lower_module(input, cg->llctx);
  if (!cg->llmod) return KR_FAILURE;   /* lower.c reported why */
  set_target(cg->llmod, cg->tm);
  char *msg = NULL;
  /* A malformed module from the lowering is a korch bug: report it rather than let the
   * optimiser crash on it (llvm-c/Analysis.h). */
  if (LLVMVerifyModule(cg->llmod, LLVMReturnStatusAction, &msg)) {
    kr_status st = fail(cg, "internal error: the lowered LLVM module is invalid", msg);
    LLVMDisposeMessage(msg);
    return st;
  }
  LLVMDisposeMessage(msg);
  if (KR_FAILED(link_libdevice(cg, o.libdevice ? o.libdevice : KR_NVPTX_LIBDEVICE))) return KR_FAILURE;
  internalize(cg->llmod);
  if (KR_FAILED(optimise(cg, o.opt_level))) return KR_FAILURE;
  if (cg->diags.first_error) return fail(cg, "LLVM reported an error", NULL);
  return KR_SUCCESS;
}

kr_status kr_nvptx_emit_llvm(kr_op *module, const kr_nvptx_options *options, kr_ostream *os) {
  codegen cg = {.module = module, .ctx = kr_op_context(module)};
  kr_status st = build(&cg, options);
  if (!KR_FAILED(st)) {
    char *text = LLVMPrintModuleToString(cg.llmod);
    kr_ostream_puts(os, text);
    LLVMDisposeMessage(text);
  }
  release(&cg);
  return st;
}

kr_status kr_nvptx_emit_ptx(kr_op *module, const kr_nvptx_options *options, kr_ostream *os) {
  codegen cg = {.module = module, .ctx = kr_op_context(module)};
  kr_status st = build(&cg, options);
  if (!KR_FAILED(st)) {
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    /* llvm-c/TargetMachine.h; the PTX "assembly" is the whole output (no object file for NVPTX). */
    if (LLVMTargetMachineEmitToMemoryBuffer(cg.tm, cg.llmod, LLVMAssemblyFile, &err, &buf)) {
      st = fail(&cg, "PTX emission failed", err);
      LLVMDisposeMessage(err);
    } else if (cg.diags.first_error) {
      st = fail(&cg, "PTX emission failed", NULL);
      LLVMDisposeMemoryBuffer(buf);
    } else {
      kr_ostream_write(os, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf));
      LLVMDisposeMemoryBuffer(buf);
    }
  }
  release(&cg);
  return st;
}
