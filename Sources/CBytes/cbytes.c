#define _GNU_SOURCE
#include <string.h>
#include "cbytes.h"

const void *mp_memmem(const void *haystack, size_t haystack_len, const void *needle, size_t needle_len) {
    return memmem(haystack, haystack_len, needle, needle_len);
}

const void *mp_memrchr(const void *s, int c, size_t n) { return memrchr(s, c, n); }
