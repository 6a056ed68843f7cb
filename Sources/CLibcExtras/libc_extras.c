#define _GNU_SOURCE
#include <malloc.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include "libc_extras.h"

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
