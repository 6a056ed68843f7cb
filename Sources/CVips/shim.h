// libvips (Debian's libvips-dev): the pictures mail-thumbnail makes. Only the Pictures module
// imports this.
#ifndef MAILPIPE_CVIPS_SHIM_H
#define MAILPIPE_CVIPS_SHIM_H
#include <malloc.h>
#include <string.h>
#include <vips/vips.h>

// VIPS_INIT is a macro, and vips' operations are variadic (options as name/value pairs ended by
// NULL), which Swift cannot call: one wrapper for each call mailpipe makes.

static inline int mp_vips_init(const char *program) { return vips_init(program); }

// One malloc arena for every thread: glibc otherwise reserves 64 MB of address space for each
// thread's own arena, and under the worker's address-space limit that reservation, not memory
// used, makes vips' threads fail to start.
static inline void mp_one_malloc_arena(void) { mallopt(M_ARENA_MAX, 1); }

// The header of a file read with one named loader (nothing else is tried): the pixels are
// decoded only when asked for, so width, height and pages cost a header read. Only the first
// page of a GIF or a PDF. Returns -1 for a loader this wrapper does not know.
static inline int mp_vips_load_header(const char *loader, const char *filename, VipsImage **out) {
    if (strcmp(loader, "jpegload") == 0) return vips_jpegload(filename, out, NULL);
    if (strcmp(loader, "pngload") == 0) return vips_pngload(filename, out, NULL);
    if (strcmp(loader, "gifload") == 0) return vips_gifload(filename, out, "n", 1, NULL);
    if (strcmp(loader, "webpload") == 0) return vips_webpload(filename, out, "n", 1, NULL);
    if (strcmp(loader, "heifload") == 0) return vips_heifload(filename, out, "n", 1, NULL);
    if (strcmp(loader, "pdfload") == 0) return vips_pdfload(filename, out, "n", 1, NULL);
    vips_error("mailpipe", "no such loader: %s", loader);
    return -1;
}

// A picture at most width × height, from the file's first page, its EXIF orientation applied,
// shrunk on load where the format allows (JPEG, WebP, HEIF, PDF), its colours turned into sRGB
// when it carries a profile of its own (the profile is not saved). Never enlarged, but for
// `enlarge` (a PDF page: drawn at the size asked, not at 72 dpi).
static inline int mp_vips_thumbnail(const char *filename, VipsImage **out, int width, int height, int enlarge) {
    VipsImage *made = NULL;
    // not thumbnail's export_profile: 8.14 then moves untagged colours too (pure blue gains red)
    if (vips_thumbnail(filename, &made, width, "height", height, "size", enlarge ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN, NULL))
        return -1;
    if (!vips_image_get_typeof(made, VIPS_META_ICC_NAME)) {
        *out = made;
        return 0;
    }
    int failed = vips_icc_transform(made, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL);
    g_object_unref(made);
    return failed;
}

// The same from another picture already made (the display copy shrunk again).
static inline int mp_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", VIPS_SIZE_DOWN, NULL);
}

// Saved with no metadata at all: no EXIF (GPS included), XMP, IPTC, ICC profile or comment.
static inline int mp_vips_jpegsave(VipsImage *in, const char *filename, int quality) {
    return vips_jpegsave(in, filename, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}
static inline int mp_vips_pngsave(VipsImage *in, const char *filename) {
    return vips_pngsave(in, filename, "strip", TRUE, NULL);
}

// 1 when the image has an alpha band that is opaque everywhere (a PNG with an alpha channel it
// does not use, a rendered PDF page), 0 when it has none or uses it, -1 on an error.
static inline int mp_vips_alpha_is_opaque(VipsImage *in) {
    if (!vips_image_hasalpha(in)) return 0;
    VipsImage *alpha = NULL;
    if (vips_extract_band(in, &alpha, in->Bands - 1, NULL)) return -1;
    double least = 0;
    int failed = vips_min(alpha, &least, NULL);
    g_object_unref(alpha);
    if (failed) return -1;
    double opaque = in->Type == VIPS_INTERPRETATION_RGB16 || in->Type == VIPS_INTERPRETATION_GREY16 ? 65535
        : in->Type == VIPS_INTERPRETATION_scRGB ? 1.0 : 255;
    return least >= opaque ? 1 : 0;
}

// The image without its alpha band.
static inline int mp_vips_drop_alpha(VipsImage *in, VipsImage **out) {
    return vips_extract_band(in, out, 0, "n", in->Bands - 1, NULL);
}

static inline int mp_vips_width(VipsImage *image) { return vips_image_get_width(image); }
static inline int mp_vips_height(VipsImage *image) { return vips_image_get_height(image); }
static inline void mp_vips_unref(VipsImage *image) { g_object_unref(image); }
#endif
