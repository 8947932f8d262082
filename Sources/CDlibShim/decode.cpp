// Image decoding straight from memory with libjpeg, libpng and libwebp. Everything here is plain C
// style on purpose: libjpeg reports fatal errors with longjmp, which must not cross C++ frames that
// own objects with destructors.

#include "hibi_face.h"

#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
#include <webp/decode.h>

namespace {

hibi_status fail(hibi_error *error, hibi_status status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

hibi_status fail(hibi_error *error, hibi_status status, const char *fmt, ...) {
    if (error) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(error->message, sizeof error->message, fmt, args);
        va_end(args);
    }
    return status;
}

uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

hibi_image_format sniff(const uint8_t *b, size_t n) {
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return HIBI_FORMAT_JPEG;
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (n >= 8 && memcmp(b, png_sig, 8) == 0) return HIBI_FORMAT_PNG;
    if (n >= 12 && memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WEBP", 4) == 0) return HIBI_FORMAT_WEBP;
    return HIBI_FORMAT_UNKNOWN;
}

// Walks JPEG markers up to the first SOFn, without decoding anything.
hibi_status jpeg_dimensions(const uint8_t *b, size_t n, int32_t *w, int32_t *h, hibi_error *error) {
    size_t i = 2;
    while (true) {
        while (i < n && b[i] != 0xFF) i++;            // tolerate fill bytes between segments
        while (i < n && b[i] == 0xFF) i++;
        if (i >= n) return fail(error, HIBI_ERR_TRUNCATED, "The JPEG file ends before its image header.");
        uint8_t marker = b[i++];
        if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) continue;
        if (marker == 0xD9 || marker == 0xDA)
            return fail(error, HIBI_ERR_CORRUPT, "The JPEG file has no frame header before its image data.");
        if (i + 2 > n) return fail(error, HIBI_ERR_TRUNCATED, "The JPEG file ends inside a header segment.");
        uint16_t len = be16(b + i);
        if (len < 2) return fail(error, HIBI_ERR_CORRUPT, "The JPEG file has a malformed header segment.");
        bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (sof) {
            if (i + 7 > n) return fail(error, HIBI_ERR_TRUNCATED, "The JPEG file ends inside its frame header.");
            *h = be16(b + i + 3);
            *w = be16(b + i + 5);
            return HIBI_OK;
        }
        i += len;
    }
}

// EXIF orientation (1...8) from an APP1 segment; 1 when absent or unreadable.
int exif_orientation(const uint8_t *d, size_t n) {
    if (n < 14 || memcmp(d, "Exif\0\0", 6) != 0) return 1;
    const uint8_t *t = d + 6;
    size_t tn = n - 6;
    bool le;
    if (t[0] == 'I' && t[1] == 'I') le = true;
    else if (t[0] == 'M' && t[1] == 'M') le = false;
    else return 1;
    auto u16 = [&](size_t o) -> uint32_t { return le ? (t[o] | t[o + 1] << 8) : (t[o] << 8 | t[o + 1]); };
    auto u32 = [&](size_t o) -> uint32_t {
        return le ? (t[o] | t[o + 1] << 8 | t[o + 2] << 16 | (uint32_t)t[o + 3] << 24)
                  : ((uint32_t)t[o] << 24 | t[o + 1] << 16 | t[o + 2] << 8 | t[o + 3]);
    };
    uint32_t ifd = u32(4);
    if (ifd + 2 > tn) return 1;
    uint32_t count = u16(ifd);
    for (uint32_t k = 0; k < count; k++) {
        size_t e = ifd + 2 + 12 * (size_t)k;
        if (e + 12 > tn) return 1;
        if (u16(e) == 0x0112) {
            uint32_t v = u16(e + 8);
            return (v >= 1 && v <= 8) ? (int)v : 1;
        }
    }
    return 1;
}

// Applies an EXIF orientation so the face is upright, as browsers and photo viewers show it.
uint8_t *apply_orientation(uint8_t *src, int32_t *pw, int32_t *ph, int orientation) {
    if (orientation <= 1) return src;
    int32_t w = *pw, h = *ph;
    bool swap = orientation >= 5;
    int32_t ow = swap ? h : w, oh = swap ? w : h;
    uint8_t *dst = (uint8_t *)malloc((size_t)ow * oh * 3);
    if (!dst) return src;
    for (int32_t y = 0; y < oh; y++) {
        for (int32_t x = 0; x < ow; x++) {
            int32_t sx, sy;
            switch (orientation) {
                case 2: sx = w - 1 - x; sy = y; break;
                case 3: sx = w - 1 - x; sy = h - 1 - y; break;
                case 4: sx = x; sy = h - 1 - y; break;
                case 5: sx = y; sy = x; break;
                case 6: sx = y; sy = h - 1 - x; break;
                case 7: sx = w - 1 - y; sy = h - 1 - x; break;
                default: sx = w - 1 - y; sy = x; break; // 8
            }
            memcpy(dst + ((size_t)y * ow + x) * 3, src + ((size_t)sy * w + sx) * 3, 3);
        }
    }
    free(src);
    *pw = ow;
    *ph = oh;
    return dst;
}

struct jpeg_failure {
    jpeg_error_mgr pub;
    jmp_buf jump;
    bool hit_end_of_data;
    char message[JMSG_LENGTH_MAX];
};

void jpeg_on_error(j_common_ptr cinfo) {
    jpeg_failure *f = (jpeg_failure *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, f->message);
    longjmp(f->jump, 1);
}

// libjpeg treats running out of data as a warning and pads the image with grey; a truncated
// upload must be refused instead, so remember that warning.
void jpeg_on_message(j_common_ptr cinfo, int level) {
    jpeg_failure *f = (jpeg_failure *)cinfo->err;
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) f->hit_end_of_data = true;
}

hibi_status decode_jpeg(const uint8_t *bytes, size_t length, hibi_image *out, hibi_error *error) {
    jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    memset(&failure, 0, sizeof failure);
    cinfo.err = jpeg_std_error(&failure.pub);
    failure.pub.error_exit = jpeg_on_error;
    failure.pub.emit_message = jpeg_on_message;
    uint8_t *volatile pixels = nullptr;
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        if (failure.hit_end_of_data)
            return fail(error, HIBI_ERR_TRUNCATED, "The JPEG file is cut off before the end of the image.");
        return fail(error, HIBI_ERR_CORRUPT, "The JPEG file is damaged (%s).", failure.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, bytes, (unsigned long)length);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    int orientation = 1;
    for (jpeg_saved_marker_ptr m = cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1) orientation = exif_orientation(m->data, m->data_length);
    }
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    int32_t w = (int32_t)cinfo.output_width, h = (int32_t)cinfo.output_height;
    size_t stride = (size_t)w * 3;
    pixels = (uint8_t *)malloc(stride * h);
    if (!pixels) {
        jpeg_destroy_decompress(&cinfo);
        return fail(error, HIBI_ERR_OUT_OF_MEMORY, "Not enough memory to decode a %dx%d JPEG.", w, h);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels + stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
        if (failure.hit_end_of_data) break;
    }
    bool truncated = failure.hit_end_of_data;
    if (!truncated) jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    if (truncated) {
        free(pixels);
        return fail(error, HIBI_ERR_TRUNCATED, "The JPEG file is cut off before the end of the image.");
    }
    uint8_t *oriented = apply_orientation(pixels, &w, &h, orientation);
    out->width = w;
    out->height = h;
    out->rgb = oriented;
    return HIBI_OK;
}

hibi_status decode_png(const uint8_t *bytes, size_t length, hibi_image *out, hibi_error *error) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes, length)) {
        bool truncated = strstr(image.message, "end of") || strstr(image.message, "Not enough") ||
                         strstr(image.message, "read beyond");
        hibi_status status = truncated ? HIBI_ERR_TRUNCATED : HIBI_ERR_CORRUPT;
        png_image_free(&image);
        return fail(error, status, truncated ? "The PNG file is cut off (%s)." : "The PNG file is damaged (%s).",
                    image.message);
    }
    image.format = PNG_FORMAT_RGB;
    size_t size = PNG_IMAGE_SIZE(image);
    uint8_t *pixels = (uint8_t *)malloc(size);
    if (!pixels) {
        png_image_free(&image);
        return fail(error, HIBI_ERR_OUT_OF_MEMORY, "Not enough memory to decode a %ux%u PNG.", image.width, image.height);
    }
    // Transparent areas become white, as a browser shows them on a default page.
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&image, &white, pixels, 0, nullptr)) {
        bool truncated = strstr(image.message, "end of") || strstr(image.message, "Not enough") ||
                         strstr(image.message, "read beyond") || strstr(image.message, "Read Error");
        free(pixels);
        png_image_free(&image);
        return fail(error, truncated ? HIBI_ERR_TRUNCATED : HIBI_ERR_CORRUPT,
                    truncated ? "The PNG file is cut off before the end of the image (%s)." : "The PNG file is damaged (%s).",
                    image.message);
    }
    out->width = (int32_t)image.width;
    out->height = (int32_t)image.height;
    out->rgb = pixels;
    return HIBI_OK;
}

hibi_status decode_webp(const uint8_t *bytes, size_t length, hibi_image *out, hibi_error *error) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return fail(error, HIBI_ERR_INTERNAL, "libwebp version mismatch.");
    config.output.colorspace = MODE_RGB;
    VP8StatusCode status = WebPDecode(bytes, length, &config);
    if (status != VP8_STATUS_OK) {
        WebPFreeDecBuffer(&config.output);
        if (status == VP8_STATUS_NOT_ENOUGH_DATA)
            return fail(error, HIBI_ERR_TRUNCATED, "The WebP file is cut off before the end of the image.");
        if (status == VP8_STATUS_UNSUPPORTED_FEATURE)
            return fail(error, HIBI_ERR_UNSUPPORTED_FORMAT, "This kind of WebP file (animated?) is not supported.");
        return fail(error, HIBI_ERR_CORRUPT, "The WebP file is damaged (libwebp status %d).", (int)status);
    }
    int32_t w = config.output.width, h = config.output.height;
    size_t stride = (size_t)w * 3;
    uint8_t *pixels = (uint8_t *)malloc(stride * h);
    if (!pixels) {
        WebPFreeDecBuffer(&config.output);
        return fail(error, HIBI_ERR_OUT_OF_MEMORY, "Not enough memory to decode a %dx%d WebP.", w, h);
    }
    for (int32_t y = 0; y < h; y++)
        memcpy(pixels + stride * y, config.output.u.RGBA.rgba + (size_t)config.output.u.RGBA.stride * y, stride);
    WebPFreeDecBuffer(&config.output);
    out->width = w;
    out->height = h;
    out->rgb = pixels;
    return HIBI_OK;
}

} // namespace

extern "C" hibi_status hibi_image_probe(const uint8_t *bytes, size_t length, hibi_image_format *format,
                                        int32_t *width, int32_t *height, hibi_error *error) {
    if (!bytes || !format || !width || !height) return fail(error, HIBI_ERR_ARGUMENT, "Missing argument.");
    *width = 0;
    *height = 0;
    *format = sniff(bytes, length);
    switch (*format) {
        case HIBI_FORMAT_JPEG:
            return jpeg_dimensions(bytes, length, width, height, error);
        case HIBI_FORMAT_PNG:
            // IHDR must be the first chunk: length, "IHDR", width, height.
            if (length < 24) return fail(error, HIBI_ERR_TRUNCATED, "The PNG file ends before its image header.");
            if (memcmp(bytes + 12, "IHDR", 4) != 0) return fail(error, HIBI_ERR_CORRUPT, "The PNG file does not start with an image header.");
            if (be32(bytes + 16) > INT32_MAX || be32(bytes + 20) > INT32_MAX)
                return fail(error, HIBI_ERR_CORRUPT, "The PNG file claims impossible dimensions.");
            *width = (int32_t)be32(bytes + 16);
            *height = (int32_t)be32(bytes + 20);
            return HIBI_OK;
        case HIBI_FORMAT_WEBP: {
            WebPBitstreamFeatures features;
            VP8StatusCode status = WebPGetFeatures(bytes, length, &features);
            if (status == VP8_STATUS_NOT_ENOUGH_DATA) return fail(error, HIBI_ERR_TRUNCATED, "The WebP file ends before its image header.");
            if (status != VP8_STATUS_OK) return fail(error, HIBI_ERR_CORRUPT, "The WebP file header is damaged.");
            *width = features.width;
            *height = features.height;
            return HIBI_OK;
        }
        default:
            return fail(error, HIBI_ERR_UNSUPPORTED_FORMAT, "The file is not a JPEG, PNG or WebP image.");
    }
}

extern "C" hibi_status hibi_image_decode(const uint8_t *bytes, size_t length, int64_t max_pixels,
                                         hibi_image *out, hibi_error *error) {
    if (!out) return fail(error, HIBI_ERR_ARGUMENT, "Missing output image.");
    out->width = 0;
    out->height = 0;
    out->rgb = nullptr;
    hibi_image_format format;
    int32_t w, h;
    hibi_status status = hibi_image_probe(bytes, length, &format, &w, &h, error);
    if (status != HIBI_OK) return status;
    if (w <= 0 || h <= 0) return fail(error, HIBI_ERR_CORRUPT, "The image claims a size of %dx%d pixels.", w, h);
    if ((int64_t)w * (int64_t)h > max_pixels) {
        out->width = w;
        out->height = h;
        return fail(error, HIBI_ERR_TOO_LARGE, "The image is %dx%d pixels; the limit is %lld pixels.", w, h,
                    (long long)max_pixels);
    }
    try {
        switch (format) {
            case HIBI_FORMAT_JPEG: return decode_jpeg(bytes, length, out, error);
            case HIBI_FORMAT_PNG: return decode_png(bytes, length, out, error);
            case HIBI_FORMAT_WEBP: return decode_webp(bytes, length, out, error);
            default: return fail(error, HIBI_ERR_UNSUPPORTED_FORMAT, "The file is not a JPEG, PNG or WebP image.");
        }
    } catch (...) {
        return fail(error, HIBI_ERR_INTERNAL, "Unexpected failure while decoding the image.");
    }
}

extern "C" void hibi_image_free(hibi_image *image) {
    if (!image) return;
    free(image->rgb);
    image->rgb = nullptr;
}
