// dlib behind a C ABI. Every entry point catches every exception.
#include "CDlibShim.h"
#include "decode_internal.h"

#include <dlib/dnn.h>
#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

using namespace dlib;

// The face recognition network exactly as dlib published it (examples/dnn_face_recognition_ex.cpp);
// dlib_face_recognition_resnet_model_v1.dat holds only the weights for this definition.
namespace facenet {
template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual = add_prev1<block<N, BN, 1, tag1<SUBNET>>>;

template <template <int, template <typename> class, int, typename> class block, int N,
          template <typename> class BN, typename SUBNET>
using residual_down = add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<block<N, BN, 2, tag1<SUBNET>>>>>>;

template <int N, template <typename> class BN, int stride, typename SUBNET>
using block = BN<con<N, 3, 3, 1, 1, relu<BN<con<N, 3, 3, stride, stride, SUBNET>>>>>;

template <int N, typename SUBNET> using ares = relu<residual<block, N, affine, SUBNET>>;
template <int N, typename SUBNET> using ares_down = relu<residual_down<block, N, affine, SUBNET>>;

template <typename SUBNET> using alevel0 = ares_down<256, SUBNET>;
template <typename SUBNET> using alevel1 = ares<256, ares<256, ares_down<256, SUBNET>>>;
template <typename SUBNET> using alevel2 = ares<128, ares<128, ares_down<128, SUBNET>>>;
template <typename SUBNET> using alevel3 = ares<64, ares<64, ares<64, ares_down<64, SUBNET>>>>;
template <typename SUBNET> using alevel4 = ares<32, ares<32, ares<32, SUBNET>>>;

using anet_type = loss_metric<fc_no_bias<128, avg_pool_everything<
                            alevel0<
                            alevel1<
                            alevel2<
                            alevel3<
                            alevel4<
                            max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2,
                            input_rgb_image_sized<150>
                            >>>>>>>>>>>>;
}  // namespace facenet

struct fe_image { matrix<rgb_pixel> pixels; };
struct fe_models {
    shape_predictor predictor;
    facenet::anet_type net;
};
struct fe_worker {
    const fe_models *models;
    frontal_face_detector detector;
    facenet::anet_type net;  // dnn forward passes keep state: one copy per worker
};

namespace {
void put(char *message, size_t capacity, const std::string &text) {
    if (message && capacity > 0) std::snprintf(message, capacity, "%s", text.c_str());
}

template <typename F> int guarded(char *message, size_t capacity, F body) {
    try {
        return body();
    } catch (const std::bad_alloc &) {
        put(message, capacity, "out of memory");
        return FE_ERR_INTERNAL;
    } catch (const std::exception &e) {
        put(message, capacity, e.what());
        return FE_ERR_INTERNAL;
    } catch (...) {
        put(message, capacity, "unknown C++ exception");
        return FE_ERR_INTERNAL;
    }
}

rectangle to_rect(const fe_rect &r) {
    return rectangle((long)std::lround(r.left), (long)std::lround(r.top), (long)std::lround(r.right), (long)std::lround(r.bottom));
}

full_object_detection to_shape(const fe_rect &r, const fe_point *p) {
    std::vector<point> parts;
    for (int i = 0; i < 5; i++) parts.emplace_back((long)std::lround(p[i].x), (long)std::lround(p[i].y));
    return full_object_detection(to_rect(r), parts);
}

inline double luma(const rgb_pixel &p) { return 0.299 * p.red + 0.587 * p.green + 0.114 * p.blue; }
}  // namespace

extern "C" {

int fe_image_decode(const uint8_t *data, size_t length, int64_t max_pixels, fe_image **out, int *width, int *height,
                    char *message, size_t capacity) {
    *out = nullptr;
    return guarded(message, capacity, [&]() -> int {
        uint8_t *rgb = nullptr;
        int w = 0, h = 0;
        int status = fe_decode_rgb(data, length, max_pixels, &rgb, &w, &h, message, capacity);
        if (width) *width = w;
        if (height) *height = h;
        if (status != FE_OK) return status;
        std::unique_ptr<uint8_t, void (*)(void *)> guard(rgb, std::free);
        auto image = std::make_unique<fe_image>();
        image->pixels.set_size(h, w);
        const uint8_t *src = rgb;
        for (long y = 0; y < h; y++)
            for (long x = 0; x < w; x++, src += 3) image->pixels(y, x) = rgb_pixel(src[0], src[1], src[2]);
        *out = image.release();
        return FE_OK;
    });
}

void fe_image_free(fe_image *image) { delete image; }
int fe_image_width(const fe_image *image) { return image ? (int)image->pixels.nc() : 0; }
int fe_image_height(const fe_image *image) { return image ? (int)image->pixels.nr() : 0; }

int fe_models_load(const char *shape_predictor_path, const char *resnet_path, fe_models **out, char *message,
                   size_t capacity) {
    *out = nullptr;
    // One OpenBLAS thread per call: the engine already runs one analysis per core, and OpenBLAS's
    // spinning helper threads made the embedding 2-4x slower at p95 on a busy 2-core machine.
    // OPENBLAS_NUM_THREADS still wins when set.
    if (!std::getenv("OPENBLAS_NUM_THREADS")) {
        typedef void (*set_threads_fn)(int);
        if (auto set_threads = (set_threads_fn)dlsym(RTLD_DEFAULT, "openblas_set_num_threads")) set_threads(1);
    }
    auto models = std::make_unique<fe_models>();
    try {
        deserialize(shape_predictor_path) >> models->predictor;
    } catch (const std::exception &e) {
        put(message, capacity, std::string(shape_predictor_path) + ": " + e.what());
        return FE_ERR_MODEL;
    } catch (...) {
        put(message, capacity, std::string(shape_predictor_path) + ": unreadable model");
        return FE_ERR_MODEL;
    }
    if (models->predictor.num_parts() != 5) {
        put(message, capacity, std::string(shape_predictor_path) + ": not a 5-point shape predictor");
        return FE_ERR_MODEL;
    }
    try {
        deserialize(resnet_path) >> models->net;
    } catch (const std::exception &e) {
        put(message, capacity, std::string(resnet_path) + ": " + e.what());
        return FE_ERR_MODEL;
    } catch (...) {
        put(message, capacity, std::string(resnet_path) + ": unreadable model");
        return FE_ERR_MODEL;
    }
    *out = models.release();
    return FE_OK;
}

void fe_models_free(fe_models *models) { delete models; }

namespace {
// dlib builds its detector by decoding a compressed string, about 0.3 s of CPU: decoded once per process (a
// function-local static is initialised once, thread-safely) and copied into each worker. Decoded per worker, it
// was half of a server's start-up time, and 3% of the test run's CPU (every face engine a test makes).
const frontal_face_detector &decoded_detector() {
    static const frontal_face_detector detector = get_frontal_face_detector();
    return detector;
}
}  // namespace

int fe_worker_create(const fe_models *models, fe_worker **out, char *message, size_t capacity) {
    *out = nullptr;
    if (!models) { put(message, capacity, "no models"); return FE_ERR_ARGUMENT; }
    return guarded(message, capacity, [&]() -> int {
        auto worker = std::make_unique<fe_worker>();
        worker->models = models;
        worker->detector = decoded_detector();  // a copy: a detector keeps scratch state while it scans
        worker->net = models->net;
        *out = worker.release();
        return FE_OK;
    });
}

void fe_worker_free(fe_worker *worker) { delete worker; }

int fe_detect(fe_worker *worker, const fe_image *image, int64_t detect_max_pixels, int64_t upsample_below_pixels,
              fe_rect *out, int capacity, int *count, char *message, size_t message_capacity) {
    *count = 0;
    if (!worker || !image) { put(message, message_capacity, "no worker or image"); return FE_ERR_ARGUMENT; }
    return guarded(message, message_capacity, [&]() -> int {
        const matrix<rgb_pixel> &src = image->pixels;
        const double area = (double)src.nr() * (double)src.nc();
        if (area <= 0) return FE_OK;
        double scale = 1.0;
        matrix<rgb_pixel> scaled;
        const matrix<rgb_pixel> *scan = &src;
        if (detect_max_pixels > 0 && area > (double)detect_max_pixels) {
            scale = std::sqrt((double)detect_max_pixels / area);
            scaled.set_size(std::max<long>(1, (long)(src.nr() * scale)), std::max<long>(1, (long)(src.nc() * scale)));
            resize_image(src, scaled);
            scale = (double)scaled.nc() / (double)src.nc();
            scan = &scaled;
        }
        std::vector<rect_detection> found;
        worker->detector(*scan, found, 0.0);
        double factor = scale;
        if (found.empty() && (double)scan->nr() * scan->nc() < (double)upsample_below_pixels) {
            matrix<rgb_pixel> up;
            pyramid_up(*scan, up, pyramid_down<2>());
            factor = scale * ((double)up.nc() / (double)scan->nc());
            worker->detector(up, found, 0.0);
        }
        std::sort(found.begin(), found.end(), [](const rect_detection &a, const rect_detection &b) {
            return a.detection_confidence > b.detection_confidence;
        });
        int n = 0;
        for (const auto &d : found) {
            if (n >= capacity) break;
            fe_rect r;
            r.left = std::max(0.0, d.rect.left() / factor);
            r.top = std::max(0.0, d.rect.top() / factor);
            r.right = std::min((double)src.nc() - 1, d.rect.right() / factor);
            r.bottom = std::min((double)src.nr() - 1, d.rect.bottom() / factor);
            r.score = d.detection_confidence;
            if (r.right <= r.left || r.bottom <= r.top) continue;
            out[n++] = r;
        }
        *count = n;
        return FE_OK;
    });
}

int fe_landmarks(fe_worker *worker, const fe_image *image, fe_rect rect, fe_point out[5], char *message,
                 size_t capacity) {
    if (!worker || !image) { put(message, capacity, "no worker or image"); return FE_ERR_ARGUMENT; }
    return guarded(message, capacity, [&]() -> int {
        full_object_detection shape = worker->models->predictor(image->pixels, to_rect(rect));
        if (shape.num_parts() != 5) { put(message, capacity, "shape predictor returned no landmarks"); return FE_ERR_INTERNAL; }
        for (unsigned i = 0; i < 5; i++) { out[i].x = shape.part(i).x(); out[i].y = shape.part(i).y(); }
        return FE_OK;
    });
}

int fe_embed(fe_worker *worker, const fe_image *image, fe_rect rect, const fe_point landmarks[5], float out[128],
             double *sharpness, double *brightness, char *message, size_t capacity) {
    if (!worker || !image) { put(message, capacity, "no worker or image"); return FE_ERR_ARGUMENT; }
    return guarded(message, capacity, [&]() -> int {
        full_object_detection shape = to_shape(rect, landmarks);
        matrix<rgb_pixel> chip;
        extract_image_chip(image->pixels, get_face_chip_details(shape, 150, 0.25), chip);
        // Quality on the face itself: the central 100x100 of the chip (the rest is padding).
        const long lo = 25, hi = 125;
        std::vector<double> grey((size_t)(hi - lo) * (hi - lo));
        double sum = 0;
        for (long y = lo; y < hi; y++)
            for (long x = lo; x < hi; x++) {
                double g = luma(chip(y, x));
                grey[(size_t)(y - lo) * (hi - lo) + (x - lo)] = g;
                sum += g;
            }
        const long n = hi - lo;
        double mean = sum / (double)(n * n);
        double lsum = 0, lsq = 0;
        long cnt = 0;
        for (long y = 1; y < n - 1; y++)
            for (long x = 1; x < n - 1; x++) {
                double l = grey[(size_t)(y - 1) * n + x] + grey[(size_t)(y + 1) * n + x] + grey[(size_t)y * n + x - 1] +
                           grey[(size_t)y * n + x + 1] - 4 * grey[(size_t)y * n + x];
                lsum += l; lsq += l * l; cnt++;
            }
        double lmean = lsum / (double)cnt;
        if (sharpness) *sharpness = lsq / (double)cnt - lmean * lmean;
        if (brightness) *brightness = mean / 255.0;
        matrix<float, 0, 1> descriptor = worker->net(chip);
        if (descriptor.size() != 128) { put(message, capacity, "embedding has the wrong size"); return FE_ERR_INTERNAL; }
        for (long i = 0; i < 128; i++) out[i] = descriptor(i);
        return FE_OK;
    });
}

int fe_emotion_input(const fe_image *image, fe_rect rect, const fe_point landmarks[5], int size, double padding,
                     float *out, char *message, size_t capacity) {
    if (!image || size <= 0) { put(message, capacity, "bad arguments"); return FE_ERR_ARGUMENT; }
    return guarded(message, capacity, [&]() -> int {
        full_object_detection shape = to_shape(rect, landmarks);
        matrix<rgb_pixel> chip;
        extract_image_chip(image->pixels, get_face_chip_details(shape, (unsigned long)size, padding), chip);
        for (long y = 0; y < size; y++)
            for (long x = 0; x < size; x++) out[y * size + x] = (float)(luma(chip(y, x)) / 255.0 * 2.0 - 1.0);
        return FE_OK;
    });
}

}  // extern "C"
