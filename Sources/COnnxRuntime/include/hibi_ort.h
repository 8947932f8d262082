#ifndef HIBI_ORT_H
#define HIBI_ORT_H

// A narrow C surface over ONNX Runtime's C API. The runtime library is opened with dlopen from a
// path chosen at run time (the models folder), so building needs only ONNX Runtime's header and
// running needs no rpath, ldconfig or LD_LIBRARY_PATH change.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hibi_ort_session hibi_ort_session;

/// Loads the runtime library (once per process; later calls reuse it) and the model. Returns NULL
/// and writes a message into error on failure. Run may be called from several threads at once.
hibi_ort_session *hibi_ort_open(const char *library_path, const char *model_path, int intra_op_threads,
                                char *error, size_t error_size);

/// The model's single input and output element counts (batch included).
size_t hibi_ort_input_count(const hibi_ort_session *session);
size_t hibi_ort_output_count(const hibi_ort_session *session);

/// Returns 0 on success.
int hibi_ort_run(hibi_ort_session *session, const float *input, size_t input_count, float *output,
                 size_t output_count, char *error, size_t error_size);

void hibi_ort_close(hibi_ort_session *session);

#ifdef __cplusplus
}
#endif

#endif
