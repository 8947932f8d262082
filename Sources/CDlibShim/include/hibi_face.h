#ifndef HIBI_FACE_H
#define HIBI_FACE_H

// C ABI over dlib and the image decoders. No dlib or C++ type crosses it, and no C++ exception
// escapes it: every call reports failure as a status plus a message.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HIBI_OK = 0,
    HIBI_ERR_ARGUMENT = 1,
    HIBI_ERR_MODEL = 2,
    HIBI_ERR_UNSUPPORTED_FORMAT = 3,
    HIBI_ERR_TRUNCATED = 4,
    HIBI_ERR_CORRUPT = 5,
    HIBI_ERR_TOO_LARGE = 6,
    HIBI_ERR_OUT_OF_MEMORY = 7,
    HIBI_ERR_INTERNAL = 8,
} hibi_status;

typedef struct {
    char message[512];
} hibi_error;

typedef enum {
    HIBI_FORMAT_UNKNOWN = 0,
    HIBI_FORMAT_JPEG = 1,
    HIBI_FORMAT_PNG = 2,
    HIBI_FORMAT_WEBP = 3,
} hibi_image_format;

/// Packed 8-bit RGB, row-major, owned by the shim; release with hibi_image_free.
typedef struct {
    int32_t width;
    int32_t height;
    uint8_t *rgb;
} hibi_image;

/// Reads only the container header: format and the dimensions the file claims.
hibi_status hibi_image_probe(const uint8_t *bytes, size_t length, hibi_image_format *format,
                             int32_t *width, int32_t *height, hibi_error *error);

/// Decodes JPEG (with EXIF orientation applied), PNG or WebP to RGB. The claimed size is checked
/// against max_pixels before any pixel is decoded; on HIBI_ERR_TOO_LARGE out->width/height hold
/// the claimed dimensions and out->rgb is NULL.
hibi_status hibi_image_decode(const uint8_t *bytes, size_t length, int64_t max_pixels,
                              hibi_image *out, hibi_error *error);
void hibi_image_free(hibi_image *image);

typedef struct hibi_models hibi_models;
typedef struct hibi_worker hibi_worker;

hibi_models *hibi_models_load(const char *shape_predictor_path, const char *recognition_model_path,
                              hibi_error *error);
void hibi_models_free(hibi_models *models);

/// A worker owns its own detector and network copies, because dlib's forward pass keeps state in
/// the network object: one worker must be used by one thread at a time.
hibi_worker *hibi_worker_create(const hibi_models *models, hibi_error *error);
void hibi_worker_free(hibi_worker *worker);

#define HIBI_EMBEDDING_SIZE 128
#define HIBI_EMOTION_SIDE 64

typedef struct {
    /// Detection box in the decoded image's pixels.
    float left, top, right, bottom;
    /// HOG detector margin; larger is more certain.
    float detection_score;
    /// dlib 5-point order: image-right eye outer, inner; image-left eye outer, inner; nose bottom.
    /// x0, y0, x1, y1, ...
    float landmarks[10];
    float embedding[HIBI_EMBEDDING_SIZE];
    /// Variance of the Laplacian over the centre of the aligned grey 150x150 chip.
    float sharpness;
    /// Mean luma (0...1) over the same region.
    float brightness;
    /// Grey square crop around the face, 64x64, scaled to [-1, 1], ready for the emotion model.
    float emotion_input[HIBI_EMOTION_SIDE * HIBI_EMOTION_SIDE];
} hibi_face;

typedef struct {
    double detect_ms;
    double align_ms;
    double embed_ms;
} hibi_stage_times;

/// Finds faces (largest first) and fills up to max_faces of them; *face_count receives how many
/// were found in total, which may exceed max_faces. Embeddings are computed only when
/// compute_embeddings is non-zero. times may be NULL.
hibi_status hibi_analyze(hibi_worker *worker, const hibi_image *image, int32_t compute_embeddings,
                         hibi_face *faces, int32_t max_faces, int32_t *face_count,
                         hibi_stage_times *times, hibi_error *error);

/// SHA-256 of a file, so model files are checked without a crypto dependency. Integrity only:
/// it guards against a wrong or damaged download, not against an attacker who can write models/.
hibi_status hibi_sha256_file(const char *path, uint8_t digest[32], hibi_error *error);

#ifdef __cplusplus
}
#endif

#endif
