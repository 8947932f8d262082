#include "hibi_face.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <dlib/dnn.h>
#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>

namespace {

using namespace dlib;

// The .dat file holds weights only; this type must match the network dlib trained
// (dlib's dnn_face_recognition_ex.cpp, dlib_face_recognition_resnet_model_v1) layer for layer.
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
    alevel0<alevel1<alevel2<alevel3<alevel4<
    max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2, input_rgb_image_sized<150>>>>>>>>>>>>>;

// The HOG detector finds faces from about 80 px. Images are brought to a working size whose long
// side is at most this, which keeps detection near 50 ms on large photos.
constexpr long kMaxDetectLongSide = 1280;
// Below this long side faces are likely under 80 px, so detection runs on a 2x upsampled copy.
constexpr long kUpsampleBelowLongSide = 500;
// A second, upsampled pass is tried on mid-sized images where the first pass found nothing.
constexpr long kRetryUpsampledUpToLongSide = 1000;
// fer's classifier was trained on Haar-cascade crops, which are looser than dlib's HOG boxes.
constexpr double kEmotionCropScale = 1.35;

hibi_status fail(hibi_error *error, hibi_status status, const std::string &message) {
    if (error) snprintf(error->message, sizeof error->message, "%s", message.c_str());
    return status;
}

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

inline unsigned char luma(const rgb_pixel &p) {
    // ITU-R BT.601 weights, as OpenCV's BGR2GRAY (what fer's model saw in training) uses.
    return (unsigned char)std::lround(0.299 * p.red + 0.587 * p.green + 0.114 * p.blue);
}

struct detection {
    rectangle box;
    double score;
};

} // namespace

struct hibi_models {
    shape_predictor landmarks;
    anet_type network;
};

struct hibi_worker {
    const hibi_models *models;
    frontal_face_detector detector;
    anet_type network;
};

extern "C" hibi_models *hibi_models_load(const char *shape_predictor_path, const char *recognition_model_path,
                                         hibi_error *error) {
    if (!shape_predictor_path || !recognition_model_path) {
        fail(error, HIBI_ERR_ARGUMENT, "Missing model path.");
        return nullptr;
    }
    hibi_models *models = nullptr;
    try {
        models = new hibi_models();
    } catch (...) {
        fail(error, HIBI_ERR_OUT_OF_MEMORY, "Not enough memory to load the face models.");
        return nullptr;
    }
    const char *current = shape_predictor_path;
    try {
        deserialize(shape_predictor_path) >> models->landmarks;
        if (models->landmarks.num_parts() != 5) {
            fail(error, HIBI_ERR_MODEL, std::string(shape_predictor_path) + " is a " +
                 std::to_string(models->landmarks.num_parts()) + "-point model; the 5-point model is required.");
            delete models;
            return nullptr;
        }
        current = recognition_model_path;
        deserialize(recognition_model_path) >> models->network;
        return models;
    } catch (const std::exception &e) {
        fail(error, HIBI_ERR_MODEL, std::string("Cannot load ") + current + ": " + e.what());
    } catch (...) {
        fail(error, HIBI_ERR_MODEL, std::string("Cannot load ") + current + ".");
    }
    delete models;
    return nullptr;
}

extern "C" void hibi_models_free(hibi_models *models) { delete models; }

extern "C" hibi_worker *hibi_worker_create(const hibi_models *models, hibi_error *error) {
    if (!models) {
        fail(error, HIBI_ERR_ARGUMENT, "Missing models.");
        return nullptr;
    }
    try {
        hibi_worker *worker = new hibi_worker{models, get_frontal_face_detector(), models->network};
        return worker;
    } catch (const std::exception &e) {
        fail(error, HIBI_ERR_INTERNAL, std::string("Cannot create a face worker: ") + e.what());
    } catch (...) {
        fail(error, HIBI_ERR_INTERNAL, "Cannot create a face worker.");
    }
    return nullptr;
}

extern "C" void hibi_worker_free(hibi_worker *worker) { delete worker; }

namespace {

std::vector<detection> detect_faces(frontal_face_detector &detector, const matrix<rgb_pixel> &image) {
    const long long_side = std::max(image.nr(), image.nc());
    matrix<unsigned char> grey(image.nr(), image.nc());
    for (long r = 0; r < image.nr(); r++)
        for (long c = 0; c < image.nc(); c++) grey(r, c) = luma(image(r, c));

    auto run = [&](double scale) {
        std::vector<rect_detection> found;
        if (scale == 1.0) {
            detector(grey, found);
        } else {
            matrix<unsigned char> scaled((long)std::lround(grey.nr() * scale), (long)std::lround(grey.nc() * scale));
            resize_image(grey, scaled);
            detector(scaled, found);
        }
        std::vector<detection> result;
        for (const auto &d : found) {
            rectangle r = d.rect;
            result.push_back({rectangle((long)std::lround(r.left() / scale), (long)std::lround(r.top() / scale),
                                        (long)std::lround(r.right() / scale), (long)std::lround(r.bottom() / scale)),
                              d.detection_confidence});
        }
        return result;
    };

    double scale = 1.0;
    if (long_side > kMaxDetectLongSide) scale = (double)kMaxDetectLongSide / long_side;
    else if (long_side < kUpsampleBelowLongSide) scale = 2.0;
    std::vector<detection> faces = run(scale);
    if (faces.empty() && scale == 1.0 && long_side <= kRetryUpsampledUpToLongSide) faces = run(2.0);
    std::sort(faces.begin(), faces.end(), [](const detection &a, const detection &b) { return a.box.area() > b.box.area(); });
    return faces;
}

void measure_chip(const matrix<rgb_pixel> &chip, hibi_face &out) {
    // The centre of the 150x150 chip is the face itself; its rim is background.
    const long lo = 25, hi = 125;
    matrix<float> grey(hi - lo, hi - lo);
    double sum = 0;
    for (long r = lo; r < hi; r++)
        for (long c = lo; c < hi; c++) {
            float v = luma(chip(r, c));
            grey(r - lo, c - lo) = v;
            sum += v;
        }
    out.brightness = (float)(sum / (grey.size() * 255.0));
    double lap_sum = 0, lap_sq = 0;
    long n = 0;
    for (long r = 1; r < grey.nr() - 1; r++)
        for (long c = 1; c < grey.nc() - 1; c++) {
            double lap = grey(r - 1, c) + grey(r + 1, c) + grey(r, c - 1) + grey(r, c + 1) - 4.0 * grey(r, c);
            lap_sum += lap;
            lap_sq += lap * lap;
            n++;
        }
    double mean = lap_sum / n;
    out.sharpness = (float)(lap_sq / n - mean * mean);
}

void emotion_crop(const matrix<rgb_pixel> &image, const rectangle &box, hibi_face &out) {
    const double side = std::max(box.width(), box.height()) * kEmotionCropScale;
    const dpoint centre = dcenter(box);
    drectangle square = centered_drect(centre, side, side);
    matrix<rgb_pixel> chip;
    extract_image_chip(image, chip_details(square, chip_dims(HIBI_EMOTION_SIDE, HIBI_EMOTION_SIDE)), chip);
    for (long r = 0; r < HIBI_EMOTION_SIDE; r++)
        for (long c = 0; c < HIBI_EMOTION_SIDE; c++)
            out.emotion_input[r * HIBI_EMOTION_SIDE + c] = (luma(chip(r, c)) / 255.0f - 0.5f) * 2.0f;
}

} // namespace

extern "C" hibi_status hibi_analyze(hibi_worker *worker, const hibi_image *image, int32_t compute_embeddings,
                                    hibi_face *faces, int32_t max_faces, int32_t *face_count,
                                    hibi_stage_times *times, hibi_error *error) {
    if (!worker || !image || !image->rgb || !face_count || (max_faces > 0 && !faces))
        return fail(error, HIBI_ERR_ARGUMENT, "Missing argument.");
    if (image->width <= 0 || image->height <= 0) return fail(error, HIBI_ERR_ARGUMENT, "Empty image.");
    *face_count = 0;
    hibi_stage_times local_times = {0, 0, 0};
    try {
        matrix<rgb_pixel> rgb(image->height, image->width);
        static_assert(sizeof(rgb_pixel) == 3, "rgb_pixel must be packed RGB");
        memcpy(&rgb(0, 0), image->rgb, (size_t)image->width * image->height * 3);

        auto start = std::chrono::steady_clock::now();
        std::vector<detection> found = detect_faces(worker->detector, rgb);
        local_times.detect_ms = ms_since(start);
        *face_count = (int32_t)found.size();
        const size_t keep = std::min(found.size(), (size_t)std::max(max_faces, 0));

        start = std::chrono::steady_clock::now();
        std::vector<matrix<rgb_pixel>> chips(keep);
        for (size_t i = 0; i < keep; i++) {
            hibi_face &face = faces[i];
            memset(&face, 0, sizeof face);
            const rectangle &box = found[i].box;
            face.left = box.left();
            face.top = box.top();
            face.right = box.right() + 1;
            face.bottom = box.bottom() + 1;
            face.detection_score = (float)found[i].score;
            full_object_detection shape = worker->models->landmarks(rgb, box);
            for (unsigned long p = 0; p < 5 && p < shape.num_parts(); p++) {
                face.landmarks[2 * p] = (float)shape.part(p).x();
                face.landmarks[2 * p + 1] = (float)shape.part(p).y();
            }
            // 0.25 padding is what the network was trained with (dlib's compute_face_descriptor default).
            extract_image_chip(rgb, get_face_chip_details(shape, 150, 0.25), chips[i]);
            measure_chip(chips[i], face);
            emotion_crop(rgb, box, face);
        }
        local_times.align_ms = ms_since(start);

        if (compute_embeddings && keep > 0) {
            start = std::chrono::steady_clock::now();
            std::vector<matrix<float, 0, 1>> descriptors = worker->network(chips);
            for (size_t i = 0; i < keep; i++)
                for (long k = 0; k < HIBI_EMBEDDING_SIZE && k < descriptors[i].size(); k++)
                    faces[i].embedding[k] = descriptors[i](k);
            local_times.embed_ms = ms_since(start);
        }
        if (times) *times = local_times;
        return HIBI_OK;
    } catch (const std::bad_alloc &) {
        return fail(error, HIBI_ERR_OUT_OF_MEMORY, "Not enough memory to analyse the image.");
    } catch (const std::exception &e) {
        return fail(error, HIBI_ERR_INTERNAL, std::string("Face analysis failed: ") + e.what());
    } catch (...) {
        return fail(error, HIBI_ERR_INTERNAL, "Face analysis failed.");
    }
}
