/* backend/artifact/plan_xml.c - model.plan.xml (docs/PlanFormat.md) through libxml2's
 * xmlTextWriter: UTF-8, one element per line, two-space indentation, attributes in the order
 * the format documents.  Nothing here depends on the host (no time, no paths), so the same
 * model gives the same bytes. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <libxml/encoding.h>
#include <libxml/xmlstring.h>
#include <libxml/xmlwriter.h>

#include "backend/artifact/artifact_impl.h"
#include "korch/diag.h"
#include "korch/kernel.h"

const char *kr_artifact_dtype_name(kr_type e) {
  if (!e) return NULL;
  if (e->kind == KR_TYPE_FLOAT) {
    switch (e->u.fkind) {
    case KR_F16: return "f16";
    case KR_BF16: return "bf16";
    case KR_F32: return "f32";
    case KR_F64: return "f64";
    }
    return NULL;
  }
  if (e->kind != KR_TYPE_INTEGER) return NULL;
  bool u = e->u.integer.sign == KR_UNSIGNED;
  switch (e->u.integer.width) {
  case 1: return u ? NULL : "i1";
  case 8: return u ? "ui8" : "i8";
  case 16: return u ? "ui16" : "i16";
  case 32: return u ? "ui32" : "i32";
  case 64: return u ? "ui64" : "i64";
  }
  return NULL;
}

/* The writer plus the first failure, so that the emitting code reads straight through and the
 * error is checked once per element. */
typedef struct xw {
  xmlTextWriterPtr w;
  bool failed;
} xw;

static void start(xw *x, const char *name) {
  if (!x->failed && xmlTextWriterStartElement(x->w, BAD_CAST name) < 0) x->failed = true;
}
static void end(xw *x) {
  if (!x->failed && xmlTextWriterEndElement(x->w) < 0) x->failed = true;
}
static void attr(xw *x, const char *name, const char *value) {
  if (!x->failed && xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value) < 0) x->failed = true;
}
static void attr_u64(xw *x, const char *name, uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "%" PRIu64, v);
  attr(x, name, buf);
}
static void attr_dims3(xw *x, const char *name, const int64_t d[3]) {
  char buf[72];
  snprintf(buf, sizeof buf, "%" PRId64 ",%" PRId64 ",%" PRId64, d[0], d[1], d[2]);
  attr(x, name, buf);
}

static const char *region_name(kr_plan_region r) { return r == KR_PLAN_REGION_WEIGHTS ? "weights" : "arena"; }

/* region="..." offset="..." bytes="..." of a buffer. */
static void attr_ref(xw *x, const kr_plan_ref *r) {
  attr(x, "region", region_name(r->region));
  attr_u64(x, "offset", r->offset);
  attr_u64(x, "bytes", r->bytes);
}

/* A graph input or output: <tensor name dtype shape region offset bytes/>. */
static void tensor(xw *x, const kr_plan_io *io) {
  kr_type t = io->ref.type;
  char shape[KR_KERNEL_MAX_RANK * 21 + 8];
  size_t n = 0;
  unsigned rank = t->u.shaped.rank;
  if (!rank) snprintf(shape, sizeof shape, "scalar");
  for (unsigned i = 0; i < rank && n < sizeof shape; i++)
    n += (size_t)snprintf(shape + n, sizeof shape - n, "%s%" PRId64, i ? "x" : "", t->u.shaped.dims[i]);
  start(x, "tensor");
  attr(x, "name", io->name);
  attr(x, "dtype", kr_artifact_dtype_name(t->u.shaped.elem));
  attr(x, "shape", shape);
  attr_ref(x, &io->ref);
  end(x);
}

/* Names come from ONNX (onnx.name) and the IR; libxml2 would write invalid UTF-8 or a control
 * character through (as bytes / a character reference), which every conforming XML 1.0 reader
 * then rejects ("Character Range", XML 1.0 section 2.2: no C0 controls but tab, LF, CR), so they
 * are refused here with the name's owner named.  Tab, LF and CR are refused too, as
 * docs/PlanFormat.md says: XML attribute-value normalisation (section 3.3.3) turns them into
 * spaces, so a reader would not get the name back; DEL likewise (a control character). */
static kr_status check_utf8(kr_op *at, const char *what, const char *s) {
  if (!xmlCheckUTF8(BAD_CAST s)) return kr_op_emit_error(at, "artifact: the %s is not valid UTF-8", what);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p < 0x20 || *p == 0x7f)
      return kr_op_emit_error(at, "artifact: the %s holds the control character U+%04X, which XML cannot hold", what,
                              *p);
  return KR_SUCCESS;
}

static kr_status check_names(const kr_artifact_model *m) {
  const kr_plan *p = &m->plan;
  char what[64];
  for (unsigned i = 0; i < p->num_inputs; i++) {
    snprintf(what, sizeof what, "name of input #%u", i);
    if (check_utf8(p->func, what, p->inputs[i].name)) return KR_FAILURE;
  }
  for (unsigned i = 0; i < p->num_outputs; i++) {
    snprintf(what, sizeof what, "name of output #%u", i);
    if (check_utf8(p->func, what, p->outputs[i].name)) return KR_FAILURE;
  }
  /* korch-run binds inputs and reports outputs by name (docs/PlanFormat.md, docs/Runtime.md): two
   * inputs or two outputs of one name would make an artifact it rejects.  Quadratic: a model has
   * a few graph inputs and outputs. */
  for (unsigned i = 0; i < p->num_inputs; i++)
    for (unsigned j = 0; j < i; j++)
      if (!strcmp(p->inputs[i].name, p->inputs[j].name))
        return kr_op_emit_error(p->func, "artifact: inputs #%u and #%u are both named '%s' (onnx.name): input names must be unique",
                                j, i, p->inputs[i].name);
  for (unsigned i = 0; i < p->num_outputs; i++)
    for (unsigned j = 0; j < i; j++)
      if (!strcmp(p->outputs[i].name, p->outputs[j].name))
        return kr_op_emit_error(p->func, "artifact: outputs #%u and #%u are both named '%s' (onnx.name): output names must be unique",
                                j, i, p->outputs[i].name);
  for (unsigned i = 0; i < m->num_kernels; i++)
    if (m->kernels[i].template_name && check_utf8(m->kernels[i].func, "korch.template", m->kernels[i].template_name))
      return KR_FAILURE;
  return KR_SUCCESS;
}

static void write_plan(xw *x, const kr_artifact_model *m) {
  const kr_plan *p = &m->plan;
  kr_ident fname = kr_op_symbol_name(p->func);
  start(x, "korch-plan");
  attr_u64(x, "version", KR_ARTIFACT_VERSION);
  attr(x, "function", fname ? fname : "");
  attr(x, "target", m->target);
  attr(x, "gpu-arch", m->gpu_arch);

  start(x, "ptx");
  attr(x, "file", KR_ARTIFACT_PTX);
  end(x);
  start(x, "arena");
  attr_u64(x, "bytes", p->arena_bytes);
  attr_u64(x, "no-reuse-bytes", p->no_reuse_bytes);
  attr_u64(x, "alignment", p->alignment);
  end(x);
  start(x, "weights");
  attr(x, "file", KR_ARTIFACT_WEIGHTS);
  attr_u64(x, "bytes", p->weights_bytes);
  end(x);

  start(x, "inputs");
  for (unsigned i = 0; i < p->num_inputs; i++) tensor(x, &p->inputs[i]);
  end(x);
  start(x, "outputs");
  for (unsigned i = 0; i < p->num_outputs; i++) tensor(x, &p->outputs[i]);
  end(x);

  start(x, "kernels");
  for (unsigned i = 0; i < m->num_kernels; i++) {
    const kr_artifact_kernel *k = &m->kernels[i];
    start(x, "kernel");
    attr(x, "name", k->name);
    attr_u64(x, "params", k->params);
    if (k->template_name) attr(x, "template", k->template_name);
    if (k->has_ptxas) {
      attr_u64(x, "registers", (uint64_t)k->ptxas.registers);
      attr_u64(x, "shared-bytes", (uint64_t)k->ptxas.shared_bytes);
      attr_u64(x, "local-bytes", (uint64_t)k->ptxas.local_bytes);
      attr_u64(x, "spill-bytes", (uint64_t)k->ptxas.spill_bytes);
    }
    end(x);
  }
  end(x);

  start(x, "launches");
  for (unsigned i = 0; i < p->num_launches; i++) {
    const kr_plan_launch *l = &p->launches[i];
    const kr_artifact_kernel *k = NULL;
    for (unsigned j = 0; j < m->num_kernels && !k; j++)
      if (m->kernels[j].func == l->kernel) k = &m->kernels[j];
    start(x, "launch");
    attr(x, "kernel", k ? k->name : "");
    if (k) {
      attr_dims3(x, "grid", k->grid);
      attr_dims3(x, "block", k->block);
      attr_u64(x, "dynamic-shared-bytes", (uint64_t)k->dynamic_shared_bytes);
    }
    for (unsigned a = 0; a < l->num_args; a++) {
      start(x, "arg");
      attr_ref(x, &l->args[a]);
      end(x);
    }
    end(x);
  }
  end(x);

  if (m->profile) {
    start(x, "profile");
    attr(x, "target", m->profile->target);
    attr(x, "hash", m->profile->hash);
    attr(x, "name", m->profile->name);
    end(x);
  }
  end(x);
}

kr_status kr_artifact_plan_xml(const kr_artifact_model *m, kr_ostream *os) {
  if (KR_FAILED(check_names(m))) return KR_FAILURE;
  xmlBufferPtr buf = xmlBufferCreate();
  xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
  if (!w) {
    if (buf) xmlBufferFree(buf);
    return kr_op_emit_error(m->plan.func, "artifact: cannot create the XML writer (out of memory)");
  }
  xw x = {w, false};
  xmlTextWriterSetIndent(w, 1);
  xmlTextWriterSetIndentString(w, BAD_CAST "  ");
  if (xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL) < 0) x.failed = true;
  write_plan(&x, m);
  if (!x.failed && xmlTextWriterEndDocument(w) < 0) x.failed = true;
  xmlFreeTextWriter(w); /* flushes into buf */
  kr_status st = KR_SUCCESS;
  if (x.failed)
    st = kr_op_emit_error(m->plan.func, "artifact: libxml2 failed to write " KR_ARTIFACT_PLAN);
  else
    kr_ostream_write(os, (const char *)xmlBufferContent(buf), (size_t)xmlBufferLength(buf));
  xmlBufferFree(buf);
  return st;
}
