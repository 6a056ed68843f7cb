// glibc's memmem and memrchr are GNU extensions that Swift's Glibc module does not export.
#ifndef MAILPIPE_CBYTES_H
#define MAILPIPE_CBYTES_H
#include <stddef.h>
const void *mp_memmem(const void *haystack, size_t haystack_len, const void *needle, size_t needle_len);
const void *mp_memrchr(const void *s, int c, size_t n);
#endif
