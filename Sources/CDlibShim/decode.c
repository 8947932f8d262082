// JPEG (libjpeg), PNG (libpng simplified API) and WebP (libwebp) decoding from memory.
// Dimensions are read from the header and checked against the pixel limit before any pixel
// buffer is allocated; truncated or corrupt data is an error, never a crash.
#include "CDlibShim.h"
#include "decode_internal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
#include <webp/decode.h>

static void set_message(char *message, size_t capacity, const char *text) {
    if (message && capacity > 0) snprintf(message, capacity, "%s", text);
}

static int sniff(const uint8_t *d, size_t n) {
    if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return FE_FORMAT_JPEG;
    if (n >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0) return FE_FORMAT_PNG;
    if (n >= 12 && memcmp(d, "RIFF", 4) == 0 && memcmp(d + 8, "WEBP", 4) == 0) return FE_FORMAT_WEBP;
    return FE_FORMAT_UNKNOWN;
}

// ---------- JPEG ----------
struct jpeg_failure {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char text[JMSG_LENGTH_MAX];
    volatile int too_many_scans;
};

static void jpeg_fail(j_common_ptr cinfo) {
    struct jpeg_failure *f = (struct jpeg_failure *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, f->text);
    longjmp(f->jump, 1);
}

static void jpeg_message(j_common_ptr cinfo, int level) {
    // libjpeg only warns about corrupt data (premature end, bogus progression, extraneous bytes) and
    // carries on; a hostile file uses that to make the decoder loop over junk. A warning is an error here.
    if (level < 0) jpeg_fail(cinfo);
}

/// More scans than any encoder writes: libjpeg-turbo's own tools suggest a limit of about 500 for
/// untrusted input; real progressive photos have about 10. One 651 KB file repeating one scan 20,000
/// times took 20 s of a face worker before this limit.
#define FE_JPEG_MAX_SCANS 100

struct jpeg_scan_limit {
    struct jpeg_progress_mgr base;
};

static void jpeg_count_scans(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > FE_JPEG_MAX_SCANS) {
        struct jpeg_failure *f = (struct jpeg_failure *)cinfo->err;
        snprintf(f->text, sizeof f->text, "more than %d scans", FE_JPEG_MAX_SCANS);
        f->too_many_scans = 1;
        longjmp(f->jump, 1);
    }
}

/// EXIF orientation (1...8) from an APP1 marker, 1 when absent.
static int exif_orientation(j_decompress_ptr cinfo) {
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 1 || m->data_length < 14) continue;
        const uint8_t *p = m->data;
        size_t n = m->data_length;
        if (memcmp(p, "Exif\0\0", 6) != 0) continue;
        p += 6; n -= 6;
        int little;
        if (p[0] == 'I' && p[1] == 'I') little = 1;
        else if (p[0] == 'M' && p[1] == 'M') little = 0;
        else continue;
#define U16(q) (little ? (uint32_t)((q)[0] | ((q)[1] << 8)) : (uint32_t)(((q)[0] << 8) | (q)[1]))
#define U32(q) (little ? ((uint32_t)(q)[0] | ((uint32_t)(q)[1] << 8) | ((uint32_t)(q)[2] << 16) | ((uint32_t)(q)[3] << 24)) \
                       : (((uint32_t)(q)[0] << 24) | ((uint32_t)(q)[1] << 16) | ((uint32_t)(q)[2] << 8) | (uint32_t)(q)[3]))
        uint32_t ifd = U32(p + 4);
        if ((size_t)ifd + 2 > n) continue;
        uint32_t entries = U16(p + ifd);
        for (uint32_t i = 0; i < entries; i++) {
            size_t e = (size_t)ifd + 2 + (size_t)i * 12;
            if (e + 12 > n) break;
            if (U16(p + e) == 0x0112) {
                uint32_t v = U16(p + e + 8);
                return (v >= 1 && v <= 8) ? (int)v : 1;
            }
        }
#undef U16
#undef U32
    }
    return 1;
}

/// Applies an EXIF orientation to an RGB buffer; returns a new buffer (or the same one for 1).
static uint8_t *orient(uint8_t *src, int w, int h, int o, int *ow, int *oh) {
    *ow = w; *oh = h;
    if (o <= 1 || o > 8) return src;
    int W = (o >= 5) ? h : w, H = (o >= 5) ? w : h;
    uint8_t *dst = (uint8_t *)malloc((size_t)W * H * 3);
    if (!dst) return NULL;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int sx, sy;
            switch (o) {
            case 2: sx = w - 1 - x; sy = y; break;
            case 3: sx = w - 1 - x; sy = h - 1 - y; break;
            case 4: sx = x; sy = h - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = h - 1 - x; break;
            case 7: sx = w - 1 - y; sy = h - 1 - x; break;
            default: sx = w - 1 - y; sy = x; break;  // 8
            }
            memcpy(dst + ((size_t)y * W + x) * 3, src + ((size_t)sy * w + sx) * 3, 3);
        }
    }
    free(src);
    *ow = W; *oh = H;
    return dst;
}

static int decode_jpeg(const uint8_t *data, size_t length, int64_t max_pixels, int probe_only, uint8_t **rgb,
                       int *width, int *height, char *message, size_t capacity) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_failure err;
    struct jpeg_scan_limit limit;
    uint8_t *volatile buffer = NULL;
    uint8_t *volatile row = NULL;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&limit, 0, sizeof limit);
    err.too_many_scans = 0;
    cinfo.err = jpeg_std_error(&err.base);
    err.base.error_exit = jpeg_fail;
    err.base.emit_message = jpeg_message;
    if (setjmp(err.jump)) {
        char text[JMSG_LENGTH_MAX + 64];
        snprintf(text, sizeof text, "JPEG: %s", err.text);
        set_message(message, capacity, text);
        jpeg_destroy_decompress(&cinfo);
        free(row);
        free(buffer);
        return err.too_many_scans ? FE_ERR_TOO_COMPLEX : FE_ERR_UNREADABLE;
    }
    jpeg_create_decompress(&cinfo);
    limit.base.progress_monitor = jpeg_count_scans;
    cinfo.progress = &limit.base;
    jpeg_mem_src(&cinfo, (const unsigned char *)data, (unsigned long)length);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    *width = (int)cinfo.image_width;
    *height = (int)cinfo.image_height;
    int o = exif_orientation(&cinfo);
    if (o >= 5) { *width = (int)cinfo.image_height; *height = (int)cinfo.image_width; }
    if (probe_only) { jpeg_destroy_decompress(&cinfo); return FE_OK; }
    if ((int64_t)cinfo.image_width * (int64_t)cinfo.image_height > max_pixels) {
        jpeg_destroy_decompress(&cinfo);
        set_message(message, capacity, "image has more pixels than allowed");
        return FE_ERR_TOO_LARGE;
    }
    int cmyk = (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK);
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    int w = (int)cinfo.output_width, h = (int)cinfo.output_height, comps = cinfo.output_components;
    buffer = (uint8_t *)malloc((size_t)w * h * 3);
    row = (uint8_t *)malloc((size_t)w * comps);
    if (!buffer || !row) {
        free(row);
        set_message(message, capacity, "out of memory decoding JPEG");
        jpeg_destroy_decompress(&cinfo);
        free(buffer);
        return FE_ERR_INTERNAL;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[1] = { row };
        int y = (int)cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, rows, 1);
        uint8_t *out = buffer + (size_t)y * w * 3;
        if (cmyk) {  // Adobe CMYK JPEGs store inverted values
            for (int x = 0; x < w; x++) {
                unsigned c = row[x * 4], m = row[x * 4 + 1], yy = row[x * 4 + 2], k = row[x * 4 + 3];
                out[x * 3] = (uint8_t)(c * k / 255);
                out[x * 3 + 1] = (uint8_t)(m * k / 255);
                out[x * 3 + 2] = (uint8_t)(yy * k / 255);
            }
        } else {
            memcpy(out, row, (size_t)w * 3);
        }
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    row = NULL;
    uint8_t *oriented = orient(buffer, w, h, o, width, height);
    if (!oriented) { free(buffer); set_message(message, capacity, "out of memory"); return FE_ERR_INTERNAL; }
    *rgb = oriented;
    return FE_OK;
}

// ---------- PNG ----------
static int decode_png(const uint8_t *data, size_t length, int64_t max_pixels, int probe_only, uint8_t **rgb,
                      int *width, int *height, char *message, size_t capacity) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) {
        char text[128];
        snprintf(text, sizeof text, "PNG: %s", image.message);
        set_message(message, capacity, text);
        png_image_free(&image);
        return FE_ERR_UNREADABLE;
    }
    *width = (int)image.width;
    *height = (int)image.height;
    if (probe_only) { png_image_free(&image); return FE_OK; }
    if ((int64_t)image.width * (int64_t)image.height > max_pixels) {
        png_image_free(&image);
        set_message(message, capacity, "image has more pixels than allowed");
        return FE_ERR_TOO_LARGE;
    }
    image.format = PNG_FORMAT_RGB;
    uint8_t *buffer = (uint8_t *)malloc(PNG_IMAGE_SIZE(image));
    if (!buffer) {
        png_image_free(&image);
        set_message(message, capacity, "out of memory decoding PNG");
        return FE_ERR_INTERNAL;
    }
    png_color white = { 255, 255, 255 };
    if (!png_image_finish_read(&image, &white, buffer, 0, NULL)) {
        char text[128];
        snprintf(text, sizeof text, "PNG: %s", image.message);
        set_message(message, capacity, text);
        png_image_free(&image);
        free(buffer);
        return FE_ERR_UNREADABLE;
    }
    *rgb = buffer;
    return FE_OK;
}

// ---------- WebP ----------
static int decode_webp(const uint8_t *data, size_t length, int64_t max_pixels, int probe_only, uint8_t **rgb,
                       int *width, int *height, char *message, size_t capacity) {
    int w = 0, h = 0;
    if (!WebPGetInfo(data, length, &w, &h)) {
        set_message(message, capacity, "WebP: not a WebP image or the header is damaged");
        return FE_ERR_UNREADABLE;
    }
    *width = w; *height = h;
    if (probe_only) return FE_OK;
    if ((int64_t)w * (int64_t)h > max_pixels) {
        set_message(message, capacity, "image has more pixels than allowed");
        return FE_ERR_TOO_LARGE;
    }
    uint8_t *decoded = WebPDecodeRGB(data, length, &w, &h);
    if (!decoded) {
        set_message(message, capacity, "WebP: the image data is truncated or damaged");
        return FE_ERR_UNREADABLE;
    }
    uint8_t *buffer = (uint8_t *)malloc((size_t)w * h * 3);
    if (!buffer) { WebPFree(decoded); set_message(message, capacity, "out of memory"); return FE_ERR_INTERNAL; }
    memcpy(buffer, decoded, (size_t)w * h * 3);
    WebPFree(decoded);
    *rgb = buffer;
    return FE_OK;
}

static int dispatch(const uint8_t *data, size_t length, int64_t max_pixels, int probe_only, uint8_t **rgb,
                    int *width, int *height, int *format, char *message, size_t capacity) {
    *width = 0; *height = 0;
    if (!data || length == 0) { set_message(message, capacity, "empty image data"); return FE_ERR_UNREADABLE; }
    int f = sniff(data, length);
    if (format) *format = f;
    switch (f) {
    case FE_FORMAT_JPEG: return decode_jpeg(data, length, max_pixels, probe_only, rgb, width, height, message, capacity);
    case FE_FORMAT_PNG: return decode_png(data, length, max_pixels, probe_only, rgb, width, height, message, capacity);
    case FE_FORMAT_WEBP: return decode_webp(data, length, max_pixels, probe_only, rgb, width, height, message, capacity);
    default:
        set_message(message, capacity, "not a JPEG, PNG or WebP image");
        return FE_ERR_UNREADABLE;
    }
}

int fe_image_probe(const uint8_t *data, size_t length, int *format, int *width, int *height) {
    int w = 0, h = 0, f = 0;
    int status = dispatch(data, length, INT64_MAX, 1, NULL, &w, &h, &f, NULL, 0);
    if (format) *format = f;
    if (width) *width = w;
    if (height) *height = h;
    return status;
}

int fe_decode_rgb(const uint8_t *data, size_t length, int64_t max_pixels, uint8_t **rgb, int *width, int *height,
                  char *message, size_t capacity) {
    *rgb = NULL;
    return dispatch(data, length, max_pixels, 0, rgb, width, height, NULL, message, capacity);
}
