#include "hibi_ort.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Fetched by scripts/setup-face.sh (Debian trixie's libonnxruntime-dev); never committed.
#include "../../vendor/onnxruntime/include/onnxruntime_c_api.h"

struct hibi_ort_session {
    const OrtApi *api;
    OrtSession *session;
    OrtMemoryInfo *memory;
    char *input_name;
    char *output_name;
    int64_t input_shape[8];
    size_t input_rank;
    size_t input_count;
    size_t output_count;
};

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static const OrtApi *runtime_api;
// ONNX Runtime allows one environment per process.
static OrtEnv *runtime_env;

static void set_error(char *error, size_t size, const char *fmt, ...) {
    if (!error || size == 0) return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(error, size, fmt, args);
    va_end(args);
}

// Consumes the status; returns 1 if it was an error.
static int failed(const OrtApi *api, OrtStatus *status, const char *what, char *error, size_t size) {
    if (!status) return 0;
    set_error(error, size, "%s: %s", what, api->GetErrorMessage(status));
    api->ReleaseStatus(status);
    return 1;
}

static const OrtApi *load_runtime(const char *library_path, char *error, size_t size) {
    pthread_mutex_lock(&runtime_lock);
    if (!runtime_api) {
        // Never unloaded: ONNX Runtime keeps global state and thread pools for the process.
        void *handle = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            set_error(error, size, "cannot load ONNX Runtime from %s: %s", library_path, dlerror());
            goto done;
        }
        const OrtApiBase *(*get_base)(void) = (const OrtApiBase *(*)(void))dlsym(handle, "OrtGetApiBase");
        if (!get_base) {
            set_error(error, size, "%s is not an ONNX Runtime library (no OrtGetApiBase)", library_path);
            goto done;
        }
        const OrtApi *api = get_base()->GetApi(ORT_API_VERSION);
        if (!api) {
            set_error(error, size, "ONNX Runtime %s at %s does not offer C API version %d",
                      get_base()->GetVersionString(), library_path, ORT_API_VERSION);
            goto done;
        }
        if (failed(api, api->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "hibi", &runtime_env), "CreateEnv", error, size))
            goto done;
        runtime_api = api;
    }
done:
    pthread_mutex_unlock(&runtime_lock);
    return runtime_api;
}

static size_t element_count(const OrtApi *api, OrtTypeInfo *info, int64_t *shape_out, size_t *rank_out) {
    const OrtTensorTypeAndShapeInfo *tensor = NULL;
    size_t rank = 0, count = 0;
    if (api->CastTypeInfoToTensorInfo(info, &tensor) == NULL && tensor &&
        api->GetDimensionsCount(tensor, &rank) == NULL && rank > 0 && rank <= 8) {
        int64_t dims[8];
        if (api->GetDimensions(tensor, dims, rank) == NULL) {
            count = 1;
            for (size_t i = 0; i < rank; i++) {
                // A symbolic (batch) dimension is run as 1.
                int64_t d = dims[i] > 0 ? dims[i] : 1;
                count *= (size_t)d;
                if (shape_out) shape_out[i] = d;
            }
            if (rank_out) *rank_out = rank;
        }
    }
    api->ReleaseTypeInfo(info);
    return count;
}

hibi_ort_session *hibi_ort_open(const char *library_path, const char *model_path, int intra_op_threads,
                                char *error, size_t size) {
    const OrtApi *api = load_runtime(library_path, error, size);
    if (!api) return NULL;
    hibi_ort_session *s = calloc(1, sizeof *s);
    if (!s) {
        set_error(error, size, "out of memory");
        return NULL;
    }
    s->api = api;
    OrtSessionOptions *options = NULL;
    OrtAllocator *allocator = NULL;
    OrtTypeInfo *info = NULL;
    char *name = NULL;
    if (failed(api, api->CreateSessionOptions(&options), "CreateSessionOptions", error, size)) goto fail;
    // The engine runs several analyses in parallel; one thread per run avoids oversubscribing cores.
    if (failed(api, api->SetIntraOpNumThreads(options, intra_op_threads), "SetIntraOpNumThreads", error, size)) goto fail;
    if (failed(api, api->SetInterOpNumThreads(options, 1), "SetInterOpNumThreads", error, size)) goto fail;
    if (failed(api, api->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL), "SetSessionGraphOptimizationLevel", error, size)) goto fail;
    if (failed(api, api->CreateSession(runtime_env, model_path, options, &s->session), model_path, error, size)) goto fail;
    if (failed(api, api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &s->memory), "CreateCpuMemoryInfo", error, size)) goto fail;
    if (failed(api, api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions", error, size)) goto fail;
    size_t inputs = 0, outputs = 0;
    if (failed(api, api->SessionGetInputCount(s->session, &inputs), "SessionGetInputCount", error, size)) goto fail;
    if (failed(api, api->SessionGetOutputCount(s->session, &outputs), "SessionGetOutputCount", error, size)) goto fail;
    if (inputs != 1 || outputs != 1) {
        set_error(error, size, "%s has %zu inputs and %zu outputs; expected one of each", model_path, inputs, outputs);
        goto fail;
    }
    if (failed(api, api->SessionGetInputName(s->session, 0, allocator, &name), "SessionGetInputName", error, size)) goto fail;
    s->input_name = strdup(name);
    api->AllocatorFree(allocator, name);
    if (failed(api, api->SessionGetOutputName(s->session, 0, allocator, &name), "SessionGetOutputName", error, size)) goto fail;
    s->output_name = strdup(name);
    api->AllocatorFree(allocator, name);
    if (failed(api, api->SessionGetInputTypeInfo(s->session, 0, &info), "SessionGetInputTypeInfo", error, size)) goto fail;
    s->input_count = element_count(api, info, s->input_shape, &s->input_rank);
    if (failed(api, api->SessionGetOutputTypeInfo(s->session, 0, &info), "SessionGetOutputTypeInfo", error, size)) goto fail;
    s->output_count = element_count(api, info, NULL, NULL);
    if (s->input_count == 0 || s->output_count == 0 || !s->input_name || !s->output_name) {
        set_error(error, size, "%s does not have a fixed-size float tensor input and output", model_path);
        goto fail;
    }
    api->ReleaseSessionOptions(options);
    return s;
fail:
    if (options) api->ReleaseSessionOptions(options);
    hibi_ort_close(s);
    return NULL;
}

size_t hibi_ort_input_count(const hibi_ort_session *s) { return s ? s->input_count : 0; }
size_t hibi_ort_output_count(const hibi_ort_session *s) { return s ? s->output_count : 0; }

int hibi_ort_run(hibi_ort_session *s, const float *input, size_t input_count, float *output, size_t output_count,
                 char *error, size_t size) {
    if (!s || !input || !output || input_count != s->input_count || output_count != s->output_count) {
        set_error(error, size, "wrong tensor sizes for this model");
        return 1;
    }
    const OrtApi *api = s->api;
    OrtValue *in = NULL, *out = NULL;
    int result = 1;
    if (failed(api, api->CreateTensorWithDataAsOrtValue(s->memory, (void *)input, input_count * sizeof(float),
                                                        s->input_shape, s->input_rank,
                                                        ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &in),
               "CreateTensorWithDataAsOrtValue", error, size))
        goto done;
    const char *input_names[1] = {s->input_name};
    const char *output_names[1] = {s->output_name};
    if (failed(api, api->Run(s->session, NULL, input_names, (const OrtValue *const *)&in, 1, output_names, 1, &out),
               "Run", error, size))
        goto done;
    float *data = NULL;
    if (failed(api, api->GetTensorMutableData(out, (void **)&data), "GetTensorMutableData", error, size)) goto done;
    memcpy(output, data, output_count * sizeof(float));
    result = 0;
done:
    if (in) api->ReleaseValue(in);
    if (out) api->ReleaseValue(out);
    return result;
}

void hibi_ort_close(hibi_ort_session *s) {
    if (!s) return;
    if (s->session) s->api->ReleaseSession(s->session);
    if (s->memory) s->api->ReleaseMemoryInfo(s->memory);
    free(s->input_name);
    free(s->output_name);
    free(s);
}
