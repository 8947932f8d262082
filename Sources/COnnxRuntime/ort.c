#include "COnnxRuntime.h"
// Installed by scripts/setup-face.sh (Debian trixie libonnxruntime-dev, API version 21).
#include "../../vendor/onnxruntime/include/onnxruntime_c_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hibi_ort {
    const OrtApi *api;
    OrtEnv *env;
    OrtSession *session;
    OrtMemoryInfo *memory;
    char input_name[128];
    char output_name[128];
    const char *version;
};

static void say(char *message, size_t capacity, const char *prefix, const char *text) {
    if (message && capacity) snprintf(message, capacity, "%s%s", prefix, text ? text : "");
}

/// Turns an OrtStatus into a message; returns 1 if it was an error.
static int failed(const OrtApi *api, OrtStatus *status, char *message, size_t capacity, const char *what) {
    if (!status) return 0;
    if (message && capacity) snprintf(message, capacity, "%s: %s", what, api->GetErrorMessage(status));
    api->ReleaseStatus(status);
    return 1;
}

void hibi_ort_close(hibi_ort *m) {
    if (!m) return;
    if (m->memory) m->api->ReleaseMemoryInfo(m->memory);
    if (m->session) m->api->ReleaseSession(m->session);
    if (m->env) m->api->ReleaseEnv(m->env);
    free(m);  // the library stays loaded: ONNX Runtime does not support being unloaded
}

int hibi_ort_open(const char *library_path, const char *model_path, int intra_threads, hibi_ort **out,
                  char *message, size_t capacity) {
    *out = NULL;
    void *lib = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) { say(message, capacity, "cannot load ONNX Runtime: ", dlerror()); return 1; }
    typedef const OrtApiBase *(*get_base_fn)(void);
    get_base_fn get_base = (get_base_fn)dlsym(lib, "OrtGetApiBase");
    if (!get_base) { say(message, capacity, "not an ONNX Runtime library: ", library_path); return 1; }
    const OrtApiBase *base = get_base();
    const OrtApi *api = base ? base->GetApi(ORT_API_VERSION) : NULL;
    if (!api) { say(message, capacity, "ONNX Runtime library is older than the header's API version: ", library_path); return 1; }
    hibi_ort *m = (hibi_ort *)calloc(1, sizeof *m);
    if (!m) { say(message, capacity, "out of memory", ""); return 1; }
    m->api = api;
    m->version = base->GetVersionString();
    OrtSessionOptions *options = NULL;
    if (failed(api, api->CreateEnv(ORT_LOGGING_LEVEL_ERROR, "hibi", &m->env), message, capacity, "CreateEnv") ||
        failed(api, api->CreateSessionOptions(&options), message, capacity, "CreateSessionOptions")) {
        hibi_ort_close(m);
        return 1;
    }
    int bad = failed(api, api->SetIntraOpNumThreads(options, intra_threads > 0 ? intra_threads : 1), message, capacity, "SetIntraOpNumThreads") ||
              failed(api, api->SetInterOpNumThreads(options, 1), message, capacity, "SetInterOpNumThreads") ||
              failed(api, api->SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL), message, capacity, "SetSessionGraphOptimizationLevel");
    if (!bad) bad = failed(api, api->CreateSession(m->env, model_path, options, &m->session), message, capacity, model_path) ? 2 : 0;
    api->ReleaseSessionOptions(options);
    if (bad) { hibi_ort_close(m); return bad == 2 ? 2 : 1; }
    OrtAllocator *allocator = NULL;
    char *name = NULL;
    if (failed(api, api->GetAllocatorWithDefaultOptions(&allocator), message, capacity, "allocator") ||
        failed(api, api->SessionGetInputName(m->session, 0, allocator, &name), message, capacity, "input name")) {
        hibi_ort_close(m);
        return 2;
    }
    snprintf(m->input_name, sizeof m->input_name, "%s", name);
    (void)api->AllocatorFree(allocator, name);
    if (failed(api, api->SessionGetOutputName(m->session, 0, allocator, &name), message, capacity, "output name")) {
        hibi_ort_close(m);
        return 2;
    }
    snprintf(m->output_name, sizeof m->output_name, "%s", name);
    (void)api->AllocatorFree(allocator, name);
    if (failed(api, api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &m->memory), message, capacity, "memory info")) {
        hibi_ort_close(m);
        return 1;
    }
    *out = m;
    return 0;
}

int hibi_ort_run(hibi_ort *m, const float *input, const int64_t *shape, size_t rank, float *output,
                 size_t output_count, char *message, size_t capacity) {
    if (!m) { say(message, capacity, "no model", ""); return 3; }
    const OrtApi *api = m->api;
    size_t count = 1;
    for (size_t i = 0; i < rank; i++) count *= (size_t)shape[i];
    OrtValue *in = NULL, *out = NULL;
    if (failed(api, api->CreateTensorWithDataAsOrtValue(m->memory, (void *)input, count * sizeof(float), shape, rank,
                                                        ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &in), message, capacity, "input tensor"))
        return 3;
    const char *in_names[1] = { m->input_name };
    const char *out_names[1] = { m->output_name };
    int status = 0;
    if (failed(api, api->Run(m->session, NULL, in_names, (const OrtValue *const *)&in, 1, out_names, 1, &out), message, capacity, "Run")) {
        status = 3;
    } else {
        OrtTensorTypeAndShapeInfo *info = NULL;
        size_t n = 0;
        float *data = NULL;
        if (failed(api, api->GetTensorTypeAndShape(out, &info), message, capacity, "output shape")) status = 3;
        else {
            if (failed(api, api->GetTensorShapeElementCount(info, &n), message, capacity, "output size")) status = 3;
            api->ReleaseTensorTypeAndShapeInfo(info);
        }
        if (!status && n != output_count) { say(message, capacity, "unexpected output size", ""); status = 3; }
        if (!status && failed(api, api->GetTensorMutableData(out, (void **)&data), message, capacity, "output data")) status = 3;
        if (!status) memcpy(output, data, n * sizeof(float));
    }
    if (out) api->ReleaseValue(out);
    api->ReleaseValue(in);
    return status;
}

const char *hibi_ort_version(const hibi_ort *m) { return m ? m->version : ""; }
