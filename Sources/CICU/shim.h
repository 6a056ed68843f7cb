// ICU's C functions are macros with a version suffix (ucnv_open is ucnv_open_72), which Swift
// cannot import: these inline wrappers give them stable names.
#ifndef MAILPIPE_CICU_SHIM_H
#define MAILPIPE_CICU_SHIM_H
#include <unicode/ucal.h>
#include <unicode/ucnv.h>
#include <unicode/udat.h>
#include <unicode/udatpg.h>
#include <unicode/uidna.h>
#include <unicode/unorm2.h>
#include <unicode/upluralrules.h>
#include <unicode/uregex.h>
#include <unicode/ustring.h>
#include <unicode/utypes.h>

static inline UConverter *mp_ucnv_open(const char *name, UErrorCode *err) { return ucnv_open(name, err); }
static inline void mp_ucnv_close(UConverter *c) { ucnv_close(c); }
static inline void mp_ucnv_reset(UConverter *c) { ucnv_reset(c); }
static inline void mp_ucnv_convertEx(UConverter *target, UConverter *source, char **t, const char *tLimit,
                                     const char **s, const char *sLimit, UChar *pivotStart, UChar **pivotSource,
                                     UChar **pivotTarget, const UChar *pivotLimit, UBool reset, UBool flush,
                                     UErrorCode *err) {
    ucnv_convertEx(target, source, t, tLimit, s, sLimit, pivotStart, pivotSource, pivotTarget, pivotLimit,
                   reset, flush, err);
}
static inline int mp_u_failure(UErrorCode e) { return U_FAILURE(e); }
static inline int mp_buffer_overflow(UErrorCode e) { return e == U_BUFFER_OVERFLOW_ERROR; }

static inline UIDNA *mp_uidna_openUTS46(uint32_t options, UErrorCode *err) { return uidna_openUTS46(options, err); }
static inline void mp_uidna_close(UIDNA *idna) { uidna_close(idna); }
static inline int32_t mp_uidna_nameToASCII_UTF8(const UIDNA *idna, const char *name, int32_t length, char *dest,
                                                int32_t capacity, uint32_t *errors, UErrorCode *err) {
    UIDNAInfo info = UIDNA_INFO_INITIALIZER;
    int32_t n = uidna_nameToASCII_UTF8(idna, name, length, dest, capacity, &info, err);
    *errors = info.errors;
    return n;
}

static inline const UNormalizer2 *mp_nfkc_casefold(UErrorCode *err) { return unorm2_getNFKCCasefoldInstance(err); }
static inline int32_t mp_unorm2_normalize(const UNormalizer2 *n, const UChar *src, int32_t length, UChar *dest,
                                          int32_t capacity, UErrorCode *err) {
    return unorm2_normalize(n, src, length, dest, capacity, err);
}

static inline int32_t mp_u_strFoldCase(UChar *dest, int32_t capacity, const UChar *src, int32_t length, UErrorCode *err) {
    return u_strFoldCase(dest, capacity, src, length, U_FOLD_CASE_DEFAULT, err);
}

static inline URegularExpression *mp_uregex_open(const UChar *pattern, int32_t length, uint32_t flags,
                                                 int32_t *errorOffset, UErrorCode *err) {
    UParseError pe;
    URegularExpression *re = uregex_open(pattern, length, flags, &pe, err);
    *errorOffset = pe.offset;
    return re;
}
static inline void mp_uregex_close(URegularExpression *re) { uregex_close(re); }
static inline void mp_uregex_setText(URegularExpression *re, const UChar *text, int32_t length, UErrorCode *err) {
    uregex_setText(re, text, length, err);
}
static inline int mp_uregex_find(URegularExpression *re, int32_t start, UErrorCode *err) { return uregex_find(re, start, err); }
static inline int mp_uregex_matches(URegularExpression *re, UErrorCode *err) { return uregex_matches(re, 0, err); }
static inline int mp_uregex_lookingAt(URegularExpression *re, UErrorCode *err) { return uregex_lookingAt(re, 0, err); }
static inline int mp_uregex_lookingAtIndex(URegularExpression *re, int32_t start, UErrorCode *err) { return uregex_lookingAt(re, start, err); }
static inline int32_t mp_uregex_start(URegularExpression *re, int32_t group, UErrorCode *err) { return uregex_start(re, group, err); }
static inline int32_t mp_uregex_end(URegularExpression *re, int32_t group, UErrorCode *err) { return uregex_end(re, group, err); }
static inline int32_t mp_uregex_groupCount(URegularExpression *re, UErrorCode *err) { return uregex_groupCount(re, err); }
static inline int32_t mp_uregex_groupNumberFromName(URegularExpression *re, const UChar *name, int32_t length, UErrorCode *err) {
    return uregex_groupNumberFromName(re, name, length, err);
}
static inline int32_t mp_ucal_getTimeZoneIDForWindowsID(const UChar *winid, int32_t length, UChar *id,
                                                      int32_t capacity, UErrorCode *err) {
    return ucal_getTimeZoneIDForWindowsID(winid, length, NULL, id, capacity, err);
}
static inline int32_t mp_ucal_getCanonicalTimeZoneID(const UChar *id, int32_t length, UChar *result,
                                                     int32_t capacity, int *isSystemID, UErrorCode *err) {
    UBool system = 0;
    int32_t n = ucal_getCanonicalTimeZoneID(id, length, result, capacity, &system, err);
    *isSystemID = system;
    return n;
}
// Dates by pattern (udat) in UTC: the caller hands wall-clock instants, so no zone is applied.
static inline UDateFormat *mp_udat_open_pattern(const char *locale, const UChar *pattern, int32_t length, UErrorCode *err) {
    static const UChar utc[] = {'U', 'T', 'C'};
    return udat_open(UDAT_PATTERN, UDAT_PATTERN, locale, utc, 3, pattern, length, err);
}
static inline void mp_udat_close(UDateFormat *f) { udat_close(f); }
static inline int32_t mp_udat_format(const UDateFormat *f, double millis, UChar *dest, int32_t capacity, UErrorCode *err) {
    return udat_format(f, millis, dest, capacity, NULL, err);
}
static inline UDateTimePatternGenerator *mp_udatpg_open(const char *locale, UErrorCode *err) { return udatpg_open(locale, err); }
static inline void mp_udatpg_close(UDateTimePatternGenerator *g) { udatpg_close(g); }
static inline int32_t mp_udatpg_getBestPattern(UDateTimePatternGenerator *g, const UChar *skeleton, int32_t length,
                                               UChar *dest, int32_t capacity, UErrorCode *err) {
    return udatpg_getBestPattern(g, skeleton, length, dest, capacity, err);
}

// Plural categories (CLDR's rules) by locale.
static inline UPluralRules *mp_uplrules_open(const char *locale, UErrorCode *err) { return uplrules_open(locale, err); }
static inline void mp_uplrules_close(UPluralRules *r) { uplrules_close(r); }
static inline int32_t mp_uplrules_select(const UPluralRules *r, double number, UChar *keyword, int32_t capacity, UErrorCode *err) {
    return uplrules_select(r, number, keyword, capacity, err);
}
#endif
