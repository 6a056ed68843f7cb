#define _GNU_SOURCE
#include <malloc.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include "libc_extras.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

const void *mp_memmem(const void *haystack, size_t haystack_len, const void *needle, size_t needle_len) {
    return memmem(haystack, haystack_len, needle, needle_len);
}

const void *mp_memrchr(const void *s, int c, size_t n) { return memrchr(s, c, n); }

void mp_keep_large_allocations_in_heap(size_t bytes) {
    mallopt(M_MMAP_THRESHOLD, (int)bytes);
    mallopt(M_TRIM_THRESHOLD, (int)(bytes * 2));
}

void mp_no_fast_bins(void) { mallopt(M_MXFAST, 0); }

void mp_grow_pipe(int fd, int bytes) {
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) (void)fcntl(fd, F_SETPIPE_SZ, bytes);
}

size_t mp_plain_ascii_length(const void *bytes, size_t n) {
    const unsigned char *p = bytes;
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        // compared as signed bytes, non-ASCII (0x80 and up) is below 0x20 as control characters are
        __m128i stop = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        int mask = _mm_movemask_epi8(stop);
        if (mask) return i + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; i < n; i++) {
        unsigned char c = p[i];
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return i;
    }
    return n;
}

size_t mp_html_plain_text_length(const void *bytes, size_t n) {
    const unsigned char *p = bytes;
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i lt = _mm_set1_epi8('<'), amp = _mm_set1_epi8('&'), ef = _mm_set1_epi8((char)0xEF);
    const __m128i below_space = _mm_set1_epi8(0x1F), tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        // unsigned v <= 0x1F: min(v, 0x1F) == v
        __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, below_space), v);
        __m128i allowed = _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
        __m128i stop = _mm_or_si128(_mm_andnot_si128(allowed, control),
                                    _mm_or_si128(_mm_cmpeq_epi8(v, lt), _mm_or_si128(_mm_cmpeq_epi8(v, amp), _mm_cmpeq_epi8(v, ef))));
        int mask = _mm_movemask_epi8(stop);
        if (mask) return i + (size_t)__builtin_ctz((unsigned)mask);
    }
#endif
    for (; i < n; i++) {
        unsigned char c = p[i];
        if (c == '<' || c == '&' || c == 0xEF || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) return i;
    }
    return n;
}

int mp_contains_either(const void *haystack, size_t n, const void *a, size_t a_len, const void *b, size_t b_len) {
    const unsigned char *h = haystack, *x = a, *y = b;
    if (a_len < 2 || b_len < 2) return memmem(h, n, x, a_len) != NULL || memmem(h, n, y, b_len) != NULL;
    size_t i = 0;
#if defined(__SSE2__)
    // a place where a needle's first and last bytes both are is a candidate, checked whole
    // (one pass for both needles, where memmem twice read the text twice)
    const __m128i a_first = _mm_set1_epi8((char)x[0]), a_last = _mm_set1_epi8((char)x[a_len - 1]);
    const __m128i b_first = _mm_set1_epi8((char)y[0]), b_last = _mm_set1_epi8((char)y[b_len - 1]);
    size_t longest = a_len > b_len ? a_len : b_len;
    for (; i + 16 + longest - 1 <= n; i += 16) {
        __m128i first = _mm_loadu_si128((const __m128i *)(h + i));
        __m128i at_a_end = _mm_loadu_si128((const __m128i *)(h + i + a_len - 1));
        __m128i at_b_end = _mm_loadu_si128((const __m128i *)(h + i + b_len - 1));
        unsigned ma = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(first, a_first), _mm_cmpeq_epi8(at_a_end, a_last)));
        unsigned mb = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(first, b_first), _mm_cmpeq_epi8(at_b_end, b_last)));
        for (; ma; ma &= ma - 1)
            if (memcmp(h + i + __builtin_ctz(ma), x, a_len) == 0) return 1;
        for (; mb; mb &= mb - 1)
            if (memcmp(h + i + __builtin_ctz(mb), y, b_len) == 0) return 1;
    }
#endif
    return memmem(h + i, n - i, x, a_len) != NULL || memmem(h + i, n - i, y, b_len) != NULL;
}
