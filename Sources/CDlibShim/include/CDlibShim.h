// C ABI over dlib (HOG face detector, 5-point shape predictor, ResNet face embedding) and the
// JPEG/PNG/WebP decoders. No C++ type crosses this boundary; every C++ exception is caught inside
// and turned into a status code plus a message.
#ifndef CDLIBSHIM_H
#define CDLIBSHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    FE_OK = 0,
    FE_ERR_UNREADABLE = 1,   // not a JPEG/PNG/WebP we can decode, or truncated/corrupt
    FE_ERR_TOO_LARGE = 2,    // header dimensions exceed the pixel limit (nothing was decoded)
    FE_ERR_MODEL = 3,        // a model file could not be read or is not the expected model
    FE_ERR_INTERNAL = 4,     // anything else (message says what)
    FE_ERR_ARGUMENT = 5,
    FE_ERR_TOO_COMPLEX = 6   // a progressive JPEG with more scans than any encoder writes (decoding stopped)
} fe_status;

typedef enum { FE_FORMAT_UNKNOWN = 0, FE_FORMAT_JPEG = 1, FE_FORMAT_PNG = 2, FE_FORMAT_WEBP = 3 } fe_format;

typedef struct fe_image fe_image;    // decoded 8-bit RGB image
typedef struct fe_models fe_models;  // shape predictor + ResNet weights; immutable after load
typedef struct fe_worker fe_worker;  // per-thread detector + network copy; use from one thread at a time

typedef struct { double left, top, right, bottom, score; } fe_rect;
typedef struct { double x, y; } fe_point;

/// Reads only the header: format and dimensions. FE_ERR_UNREADABLE when it cannot.
int fe_image_probe(const uint8_t *data, size_t length, int *format, int *width, int *height);

/// Decodes to RGB. Refuses (FE_ERR_TOO_LARGE, width/height set) when width*height > max_pixels,
/// before allocating pixels. JPEG EXIF orientation is applied.
int fe_image_decode(const uint8_t *data, size_t length, int64_t max_pixels, fe_image **out,
                    int *width, int *height, char *message, size_t message_capacity);
void fe_image_free(fe_image *image);
int fe_image_width(const fe_image *image);
int fe_image_height(const fe_image *image);

int fe_models_load(const char *shape_predictor_path, const char *resnet_path, fe_models **out,
                   char *message, size_t message_capacity);
void fe_models_free(fe_models *models);

int fe_worker_create(const fe_models *models, fe_worker **out, char *message, size_t message_capacity);
void fe_worker_free(fe_worker *worker);

/// HOG detection. The image is downscaled so that it has at most detect_max_pixels for the scan;
/// when nothing is found and the scanned image is smaller than upsample_below_pixels it is scanned
/// again at twice the size. Rectangles come back in original image pixels, best score first.
int fe_detect(fe_worker *worker, const fe_image *image, int64_t detect_max_pixels, int64_t upsample_below_pixels,
              fe_rect *out, int capacity, int *count, char *message, size_t message_capacity);

/// 5 landmarks (dlib's order: 0,1 = eye corners on the image's right side, outer then inner;
/// 2,3 = eye corners on the image's left side, outer then inner; 4 = bottom of the nose).
int fe_landmarks(fe_worker *worker, const fe_image *image, fe_rect rect, fe_point out[5],
                 char *message, size_t message_capacity);

/// Aligned 150x150 chip -> 128-d embedding; also the chip's sharpness (variance of the Laplacian of
/// the grey chip) and brightness (mean grey in 0...1).
int fe_embed(fe_worker *worker, const fe_image *image, fe_rect rect, const fe_point landmarks[5],
             float out[128], double *sharpness, double *brightness, char *message, size_t message_capacity);

/// Aligned grey size x size chip (padding as in dlib's get_face_chip_details) scaled to [-1, 1],
/// written row-major into out (size*size floats).
int fe_emotion_input(const fe_image *image, fe_rect rect, const fe_point landmarks[5], int size, double padding,
                     float *out, char *message, size_t message_capacity);

#ifdef __cplusplus
}
#endif
#endif
