// glibc functions that Swift's Glibc module does not export (GNU extensions, malloc.h).
#ifndef MAILPIPE_LIBC_EXTRAS_H
#define MAILPIPE_LIBC_EXTRAS_H
#include <stddef.h>
const void *mp_memmem(const void *haystack, size_t haystack_len, const void *needle, size_t needle_len);
const void *mp_memrchr(const void *s, int c, size_t n);
/// Keeps allocations up to `bytes` in the heap rather than in pages mapped for each one.
void mp_keep_large_allocations_in_heap(size_t bytes);
/// Frees small blocks straight into the heap's bins: a program that builds and frees big
/// trees of small blocks (libical's components) then pays for no consolidation passes.
void mp_no_fast_bins(void);
/// Grows the pipe behind `fd` to `bytes` when `fd` is a pipe (Linux F_SETPIPE_SZ); else nothing.
void mp_grow_pipe(int fd, int bytes);
/// How many bytes from `bytes` on are printable ASCII other than '"' and '\\': where a JSON
/// string's scanner must look at a byte, 16 at a time.
size_t mp_plain_ascii_length(const void *bytes, size_t n);
/// How many bytes from `bytes` on libxml2 would copy as HTML text as they are: all but '<', '&',
/// control characters other than tab, LF and CR, and 0xEF (which starts U+FFFE and U+FFFF,
/// which it drops too); 16 at a time.
size_t mp_html_plain_text_length(const void *bytes, size_t n);
/// Whether `a` or `b` occurs in `haystack`, in one pass over it.
int mp_contains_either(const void *haystack, size_t n, const void *a, size_t a_len, const void *b, size_t b_len);
#endif
