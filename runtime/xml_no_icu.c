/* runtime/xml_no_icu.c - stands in for ICU's converters in the static korch-run build
 * (KORCH_RUNTIME_STATIC_XML, runtime/CMakeLists.txt).
 *
 * Debian's libxml2 is built with ICU, and libxml2.a references seven ICU symbols from its
 * encoding layer (encoding.c, openIcuConverter): it tries ICU only for encodings that neither its
 * built-in converters (UTF-8, UTF-16, ISO-8859-1, ASCII...) nor glibc's iconv handle.  A plan is
 * UTF-8, so korch-run never needs ICU: ucnv_open reports failure (U_UNSUPPORTED_ERROR), which
 * libxml2 handles as "no converter".  The names carry ICU's version suffix (KORCH_ICU_SUFFIX,
 * read from libxml2.a by CMake).  The other entry points are never reached after a failed open;
 * they fail the same way if they are. */
#include <stddef.h>

#ifndef KORCH_ICU_SUFFIX
#define KORCH_ICU_SUFFIX
#endif
#define KR_ICU_CAT2(a, b) a##b
#define KR_ICU_CAT(a, b) KR_ICU_CAT2(a, b)
#define KR_ICU(name) KR_ICU_CAT(name, KORCH_ICU_SUFFIX)

typedef int kr_icu_error;         /* UErrorCode */
enum { KR_U_UNSUPPORTED_ERROR = 16 };
typedef struct kr_uconverter kr_uconverter;

kr_uconverter *KR_ICU(ucnv_open)(const char *name, kr_icu_error *status);
void KR_ICU(ucnv_close)(kr_uconverter *conv);
void KR_ICU(ucnv_convertEx)(kr_uconverter *to, kr_uconverter *from, char **target, const char *target_limit,
                            const char **source, const char *source_limit, void *pivot_start, void **pivot_source,
                            void **pivot_target, const void *pivot_limit, signed char reset, signed char flush,
                            kr_icu_error *status);
void KR_ICU(ucnv_setToUCallBack)(kr_uconverter *conv, void *action, const void *context, void **old_action,
                                 const void **old_context, kr_icu_error *status);
void KR_ICU(ucnv_setFromUCallBack)(kr_uconverter *conv, void *action, const void *context, void **old_action,
                                   const void **old_context, kr_icu_error *status);
void KR_ICU(UCNV_TO_U_CALLBACK_STOP)(void);
void KR_ICU(UCNV_FROM_U_CALLBACK_STOP)(void);

kr_uconverter *KR_ICU(ucnv_open)(const char *name, kr_icu_error *status) {
  (void)name;
  if (status) *status = KR_U_UNSUPPORTED_ERROR;
  return NULL;
}

void KR_ICU(ucnv_close)(kr_uconverter *conv) { (void)conv; }

void KR_ICU(ucnv_convertEx)(kr_uconverter *to, kr_uconverter *from, char **target, const char *target_limit,
                            const char **source, const char *source_limit, void *pivot_start, void **pivot_source,
                            void **pivot_target, const void *pivot_limit, signed char reset, signed char flush,
                            kr_icu_error *status) {
  (void)to, (void)from, (void)target, (void)target_limit, (void)source, (void)source_limit, (void)pivot_start;
  (void)pivot_source, (void)pivot_target, (void)pivot_limit, (void)reset, (void)flush;
  if (status) *status = KR_U_UNSUPPORTED_ERROR;
}

void KR_ICU(ucnv_setToUCallBack)(kr_uconverter *conv, void *action, const void *context, void **old_action,
                                 const void **old_context, kr_icu_error *status) {
  (void)conv, (void)action, (void)context, (void)old_action, (void)old_context;
  if (status) *status = KR_U_UNSUPPORTED_ERROR;
}

void KR_ICU(ucnv_setFromUCallBack)(kr_uconverter *conv, void *action, const void *context, void **old_action,
                                   const void **old_context, kr_icu_error *status) {
  (void)conv, (void)action, (void)context, (void)old_action, (void)old_context;
  if (status) *status = KR_U_UNSUPPORTED_ERROR;
}

/* Callback addresses libxml2 passes to the two setters above. */
void KR_ICU(UCNV_TO_U_CALLBACK_STOP)(void) {}
void KR_ICU(UCNV_FROM_U_CALLBACK_STOP)(void) {}
