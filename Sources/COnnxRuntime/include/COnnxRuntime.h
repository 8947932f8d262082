// A small C layer over the ONNX Runtime C API for Swift. The ORT header itself
// (vendor/onnxruntime/include/onnxruntime_c_api.h, installed by scripts/setup-face.sh) is only
// included by ort.c, and libonnxruntime.so is opened at run time with dlopen, so nothing here needs
// ONNX Runtime at build time except that header.
#ifndef CONNXRUNTIME_H
#define CONNXRUNTIME_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct hibi_ort hibi_ort;  // one loaded model; hibi_ort_run may be called from several threads

/// Opens the library (dlopen), creates an environment and a session for model_path with
/// intra_threads threads. Returns 0, or 1 when the library cannot be loaded, 2 when the model
/// cannot be loaded; message says why.
int hibi_ort_open(const char *library_path, const char *model_path, int intra_threads, hibi_ort **out,
                  char *message, size_t capacity);

/// Runs the model's first input -> first output on float tensors. output_count must match the
/// output's element count. Returns 0 or 3 with a message.
int hibi_ort_run(hibi_ort *model, const float *input, const int64_t *shape, size_t rank, float *output,
                 size_t output_count, char *message, size_t capacity);

void hibi_ort_close(hibi_ort *model);

/// The ORT version string of the loaded library ("1.31.1").
const char *hibi_ort_version(const hibi_ort *model);

#ifdef __cplusplus
}
#endif
#endif
