/* backend/target/target.c - GPU target descriptions (korch/target.h): the built-in XML files
 * compiled into the library (backend/target/<name>.xml, embedded by embed-xml.cmake) or any XML file,
 * read with libxml2 and checked strictly; the module attribute `korch.target`.
 *
 * Format (docs/Targets.md):
 *   <korch-target version="1" name="h200">
 *     <gpu>NVIDIA H200 SXM 141GB</gpu> <arch>sm_90</arch> <sm_count>132</sm_count> ...
 *   </korch-target>
 * one child element per kr_target field (except `name`, the root's attribute), each exactly
 * once, text content only; unknown elements are errors. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/target/builtin.h"
#include "backend/target/xml.h"
#include "korch/diag.h"
#include "korch/target.h"

typedef enum field_kind { F_STR, F_INT, F_I64, F_F64 } field_kind;

typedef struct field_desc {
  const char *name;
  field_kind kind;
  size_t offset;
  size_t size; /* F_STR: buffer size */
  double lo, hi; /* numbers: the plausible range (inclusive; docs/Targets.md) */
} field_desc;

/* Plausible ranges: wide around every GPU there is (a test target of 1 SM and 1 GB/s included),
 * narrow enough that a typo or a unit slip (1e-25 GB/s, 1e30 us) cannot reach the cost model,
 * whose times then stay far below what the MILP accepts (solver/milp_impl.h). */
#define FIELD(n, k, lo, hi)                                                                                            \
  { #n, k, offsetof(kr_target, n), sizeof(((kr_target *)0)->n), lo, hi }
static const field_desc fields[] = {
    FIELD(gpu, F_STR, 0, 0),
    FIELD(arch, F_STR, 0, 0),
    FIELD(sm_count, F_INT, 1, 1e5),
    FIELD(sm_clock_mhz, F_F64, 1, 1e5),
    FIELD(dram_bandwidth_gbs, F_F64, 1, 1e6),
    FIELD(dram_bytes, F_I64, 1, 0x1p50),             /* 1 PiB */
    FIELD(l2_bytes, F_I64, 1, 0x1p40),
    FIELD(smem_per_block_bytes, F_I64, 1, 0x1p30),
    FIELD(smem_per_block_optin_bytes, F_I64, 1, 0x1p30),
    FIELD(smem_per_sm_bytes, F_I64, 1, 0x1p30),
    FIELD(regs_per_sm, F_INT, 1, 0x1p24),
    FIELD(regs_per_block, F_INT, 1, 0x1p24),
    FIELD(max_regs_per_thread, F_INT, 1, 0x1p16),
    FIELD(max_threads_per_block, F_INT, 1, 0x1p20),
    FIELD(max_threads_per_sm, F_INT, 1, 0x1p24),
    FIELD(warp_size, F_INT, 1, 1024),
    FIELD(peak_fp32_tflops, F_F64, 1e-3, 1e5),
    FIELD(peak_tf32_tflops, F_F64, 1e-3, 1e5),
    FIELD(peak_fp16_tflops, F_F64, 1e-3, 1e5),
    FIELD(launch_overhead_us, F_F64, 0, 1e4),         /* and positive, as every number */
};
#undef FIELD
enum { NUM_FIELDS = sizeof fields / sizeof fields[0] };

const char *const *kr_target_builtin_names(void) { return kr_target_builtin_name_list; }

/* A target name: [a-z0-9_.-]+, shorter than kr_target.name. */
static bool valid_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n >= sizeof(((kr_target *)0)->name)) return false;
  for (; *s; s++)
    if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_' || *s == '.' || *s == '-'))
      return false;
  return true;
}

/* "sm_<digits>" with an optional architecture-specific suffix letter ("sm_90a"). */
static bool valid_arch(const char *s) {
  if (strncmp(s, "sm_", 3) != 0 || !isdigit((unsigned char)s[3])) return false;
  s += 3;
  while (isdigit((unsigned char)*s)) s++;
  if (*s == 'a' || *s == 'f') s++;
  return *s == 0;
}

/* Reads the fields of the root element `root` of `url` into *out; `want_name` (a built-in's
 * name, or NULL) must equal the root's name attribute. */
static kr_status read_target(kr_context *ctx, kr_attr loc, const char *url, xmlNodePtr root, const char *want_name,
                             kr_target *out) {
  kr_target t;
  memset(&t, 0, sizeof t);
  long root_line = kr_xml_line(root);
  if (strcmp((const char *)root->name, "korch-target") != 0)
    return kr_emit_error(ctx, loc, "%s:%ld: root element is <%s>, expected <korch-target>", url, root_line,
                         (const char *)root->name);
  for (xmlAttrPtr a = root->properties; a; a = a->next) {
    const char *an = (const char *)a->name;
    if (strcmp(an, "version") != 0 && strcmp(an, "name") != 0)
      return kr_emit_error(ctx, loc, "%s:%ld: unknown attribute '%s' on <korch-target>", url, root_line, an);
  }
  xmlChar *version = xmlGetProp(root, (const xmlChar *)"version");
  bool version_ok = version && strcmp((const char *)version, "1") == 0;
  if (!version_ok) {
    kr_emit_error(ctx, loc, "%s:%ld: <korch-target> needs version=\"1\" (found %s%s%s)", url, root_line,
                  version ? "\"" : "", version ? (const char *)version : "none", version ? "\"" : "");
    xmlFree(version);
    return KR_FAILURE;
  }
  xmlFree(version);
  xmlChar *name = xmlGetProp(root, (const xmlChar *)"name");
  if (name == NULL || !valid_name((const char *)name)) {
    kr_emit_error(ctx, loc, "%s:%ld: <korch-target> needs a name=\"...\" of 1 to %zu characters [a-z0-9_.-]", url,
                  root_line, sizeof t.name - 1);
    xmlFree(name);
    return KR_FAILURE;
  }
  snprintf(t.name, sizeof t.name, "%s", (const char *)name);
  xmlFree(name);
  if (want_name && strcmp(t.name, want_name) != 0)
    return kr_emit_error(ctx, loc, "%s:%ld: target file names itself '%s', expected '%s'", url, root_line, t.name,
                         want_name);

  long seen_line[NUM_FIELDS] = {0};
  bool ok;
  for (xmlNodePtr n = kr_xml_next_element(ctx, loc, url, root->children, &ok); n;
       n = kr_xml_next_element(ctx, loc, url, n->next, &ok)) {
    long line = kr_xml_line(n);
    const char *en = (const char *)n->name;
    int fi = -1;
    for (int i = 0; i < NUM_FIELDS; i++)
      if (strcmp(fields[i].name, en) == 0) fi = i;
    if (fi < 0) return kr_emit_error(ctx, loc, "%s:%ld: unknown target field <%s>", url, line, en);
    if (seen_line[fi])
      return kr_emit_error(ctx, loc, "%s:%ld: field <%s> given twice (first at line %ld)", url, line, en,
                           seen_line[fi]);
    seen_line[fi] = line > 0 ? line : 1;
    for (xmlNodePtr c = n->children; c; c = c->next)
      if (c->type == XML_ELEMENT_NODE)
        return kr_emit_error(ctx, loc, "%s:%ld: field <%s> holds an element <%s>; expected text", url, line, en,
                             (const char *)c->name);
    xmlChar *raw = xmlNodeGetContent(n);
    char *text = kr_xml_trim_dup((const char *)raw);
    xmlFree(raw);
    if (!text) return kr_emit_error(ctx, loc, "%s:%ld: out of memory", url, line);
    const field_desc *f = &fields[fi];
    char *dst = (char *)&t + f->offset;
    kr_status st = KR_SUCCESS;
    int64_t iv;
    double dv;
    switch (f->kind) {
    case F_STR:
      if (text[0] == 0 || strlen(text) >= f->size)
        st = kr_emit_error(ctx, loc, "%s:%ld: field <%s> must be 1 to %zu characters", url, line, en, f->size - 1);
      else
        memcpy(dst, text, strlen(text) + 1);
      break;
    case F_INT:
    case F_I64:
      if (!kr_xml_parse_i64(text, &iv))
        st = kr_emit_error(ctx, loc, "%s:%ld: field <%s> must be an integer, got '%s'", url, line, en, text);
      else if (iv <= 0)
        st = kr_emit_error(ctx, loc, "%s:%ld: field <%s> must be positive, got %lld", url, line, en, (long long)iv);
      else if ((double)iv < f->lo || (double)iv > f->hi)
        st = kr_emit_error(ctx, loc, "%s:%ld: field <%s> = %lld is outside its plausible range [%.0f, %.0f]", url,
                           line, en, (long long)iv, f->lo, f->hi);
      else if (f->kind == F_INT) {
        int v = (int)iv;
        memcpy(dst, &v, sizeof v);
      } else
        memcpy(dst, &iv, sizeof iv);
      break;
    case F_F64:
      if (!kr_xml_parse_f64(text, &dv))
        st = kr_emit_error(ctx, loc, "%s:%ld: field <%s> must be a finite decimal number, got '%s'", url, line, en,
                           text);
      else if (!(dv > 0))
        st = kr_emit_error(ctx, loc, "%s:%ld: field <%s> must be positive, got %g", url, line, en, dv);
      else if (dv < f->lo || dv > f->hi)
        st = kr_emit_error(ctx, loc, "%s:%ld: field <%s> = %g is outside its plausible range [%g, %g]", url, line, en,
                           dv, f->lo, f->hi);
      else
        memcpy(dst, &dv, sizeof dv);
      break;
    }
    free(text);
    if (st != KR_SUCCESS) return st;
  }
  if (!ok) return KR_FAILURE;
  for (int i = 0; i < NUM_FIELDS; i++)
    if (!seen_line[i])
      return kr_emit_error(ctx, loc, "%s:%ld: target '%s' lacks the field <%s>", url, root_line, t.name,
                           fields[i].name);

  /* Consistency of the limits (CUDA C++ Programming Guide, compute capability table). */
  if (!valid_arch(t.arch))
    return kr_emit_error(ctx, loc, "%s:%ld: <arch> must be sm_<digits> (e.g. sm_90), got '%s'", url, root_line, t.arch);
  if (!(t.smem_per_block_bytes <= t.smem_per_block_optin_bytes && t.smem_per_block_optin_bytes <= t.smem_per_sm_bytes))
    return kr_emit_error(ctx, loc,
                         "%s:%ld: shared memory limits must satisfy smem_per_block_bytes (%lld) <= "
                         "smem_per_block_optin_bytes (%lld) <= smem_per_sm_bytes (%lld)",
                         url, root_line, (long long)t.smem_per_block_bytes, (long long)t.smem_per_block_optin_bytes,
                         (long long)t.smem_per_sm_bytes);
  if (t.regs_per_block > t.regs_per_sm)
    return kr_emit_error(ctx, loc, "%s:%ld: regs_per_block (%d) exceeds regs_per_sm (%d)", url, root_line,
                         t.regs_per_block, t.regs_per_sm);
  if (t.max_threads_per_block > t.max_threads_per_sm)
    return kr_emit_error(ctx, loc, "%s:%ld: max_threads_per_block (%d) exceeds max_threads_per_sm (%d)", url, root_line,
                         t.max_threads_per_block, t.max_threads_per_sm);
  if (t.max_threads_per_block % t.warp_size != 0 || t.max_threads_per_sm % t.warp_size != 0)
    return kr_emit_error(ctx, loc, "%s:%ld: thread limits must be multiples of warp_size (%d)", url, root_line,
                         t.warp_size);
  *out = t;
  return KR_SUCCESS;
}

static bool is_path(const char *s) {
  size_t n = strlen(s);
  return strchr(s, '/') != NULL || (n >= 4 && strcmp(s + n - 4, ".xml") == 0);
}

kr_status kr_target_load(kr_context *ctx, const char *name_or_path, kr_attr loc, kr_target *out) {
  if (loc == NULL) loc = kr_loc_unknown(ctx);
  if (name_or_path == NULL || name_or_path[0] == 0) return kr_emit_error(ctx, loc, "empty target name");
  xmlDocPtr doc;
  const char *want_name = NULL;
  char buf[64];
  const char *url = buf;
  if (is_path(name_or_path)) {
    int fd = open(name_or_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return kr_emit_error(ctx, loc, "cannot read target file '%s': %s", name_or_path, strerror(errno));
    url = name_or_path;
    doc = kr_xml_parse(ctx, loc, name_or_path, NULL, 0, fd);
    close(fd);
  } else {
    const kr_target_builtin *b = NULL;
    for (unsigned i = 0; i < kr_target_num_builtins; i++)
      if (strcmp(kr_target_builtins[i].name, name_or_path) == 0) b = &kr_target_builtins[i];
    if (b == NULL) {
      char list[256] = "";
      for (unsigned i = 0; i < kr_target_num_builtins; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", kr_target_builtins[i].name);
      }
      return kr_emit_error(ctx, loc, "unknown target '%s' (built-in targets: %s; or a path to an XML file)",
                           name_or_path, list);
    }
    snprintf(buf, sizeof buf, "backend/target/%s.xml", b->name);
    want_name = b->name;
    doc = kr_xml_parse(ctx, loc, url, b->xml, b->len, -1);
  }
  if (doc == NULL) return KR_FAILURE;
  kr_status st = read_target(ctx, loc, url, xmlDocGetRootElement(doc), want_name, out);
  xmlFreeDoc(doc);
  return st;
}

kr_status kr_target_of_module(kr_op *module, kr_target *out) {
  kr_attr a = kr_op_get_attr(module, KR_TARGET_ATTR);
  if (a == NULL) return kr_target_load(kr_op_context(module), KR_TARGET_DEFAULT, module->loc, out);
  if (a->kind != KR_ATTR_STRING)
    return kr_op_emit_error(module, "attribute '%s' must be a string (a target name or an XML file path)",
                            KR_TARGET_ATTR);
  return kr_target_load(kr_op_context(module), a->u.string.str, module->loc, out);
}

/* A path is stored absolute (realpath), so that a later pass run from another directory reads
 * the same file; a built-in name, or a path realpath cannot resolve, is stored as given. */
void kr_target_set_module(kr_op *module, const char *name_or_path) {
  kr_context *ctx = kr_op_context(module);
  char *abs = is_path(name_or_path) ? realpath(name_or_path, NULL) : NULL;
  const char *v = abs ? abs : name_or_path;
  kr_op_set_attr(module, KR_TARGET_ATTR, kr_attr_string(ctx, v, strlen(v)));
  free(abs);
}
