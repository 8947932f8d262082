#ifndef FE_DECODE_INTERNAL_H
#define FE_DECODE_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/// Plain-C decoders (setjmp-based libjpeg error handling must not unwind C++ frames).
/// On success *rgb is a malloc'd width*height*3 buffer the caller frees with free().
int fe_decode_rgb(const uint8_t *data, size_t length, int64_t max_pixels, uint8_t **rgb,
                  int *width, int *height, char *message, size_t capacity);
#ifdef __cplusplus
}
#endif
#endif
