#include "train/dataset_source.h"

#include <filesystem>
#include <stdexcept>

#include "formats/load_error.h"
#include "tensor/shape.h"
#include "train/csv_dataset.h"
#include "train/fashion_mnist.h"
#include "train/idx_file.h"
#include "train/synthetic_datasets.h"

namespace ampstudio {

namespace {

std::string describe(const std::string& what, const TrainingData& d, const char* heldOut) {
    return what + ": " + std::to_string(d.train.size()) + " training, " + std::to_string(d.validation.size()) + " " +
           heldOut + " samples of " + shapeString(d.train.sampleShape);
}

TrainingData heldOut(const Dataset& all, const DataSourceOptions& options, bool standardise) {
    TrainValidationSplit split = splitTrainValidation(all, options.validationFraction, options.seed);
    TrainingData d{std::move(split.train), std::move(split.validation), {}};
    if (standardise) {
        const FeatureNormalization n = fitFeatureNormalization(d.train);
        applyFeatureNormalization(d.train, n);
        applyFeatureNormalization(d.validation, n);
    }
    return d;
}

std::filesystem::path firstExisting(const std::filesystem::path& dir, std::initializer_list<const char*> names) {
    for (const char* name : names) {
        for (const char* suffix : {"", ".gz"}) {
            const std::filesystem::path p = dir / (std::string(name) + suffix);
            if (std::filesystem::exists(p)) {
                return p;
            }
        }
    }
    return {};
}

}  // namespace

TrainingData loadTrainingData(std::string_view spec, const DataSourceOptions& options) {
    if (spec == "fashion-mnist") {
        FashionMnist f = loadFashionMnist();
        scalePixelsToUnit(f.train);
        scalePixelsToUnit(f.test);
        TrainingData d{std::move(f.train), std::move(f.test), {}};
        d.description = describe("Fashion-MNIST", d, "test");
        return d;
    }
    const auto colon = spec.find(':');
    const std::string_view kind = spec.substr(0, colon);
    const std::string arg = colon == std::string_view::npos ? std::string() : std::string(spec.substr(colon + 1));
    if (kind == "synthetic") {
        Dataset all;
        if (arg == "regression") {
            RegressionOptions o;
            o.seed = options.seed;
            all = syntheticRegression(o);
        } else if (arg == "spirals" || arg == "two-spirals") {
            SpiralOptions o;
            o.seed = options.seed;
            all = twoSpirals(o);
        } else if (arg == "blobs") {
            BlobOptions o;
            o.seed = options.seed;
            all = gaussianBlobs(o);
        } else {
            throw std::invalid_argument("unknown synthetic dataset '" + arg + "' (accepted: regression, spirals, blobs)");
        }
        TrainingData d = heldOut(all, options, true);
        d.description = describe("synthetic " + arg, d, "validation");
        return d;
    }
    if (kind == "csv" && !arg.empty()) {
        CsvDatasetOptions o;
        o.labelColumn = options.labelColumn;
        o.task = options.csvTask;
        TrainingData d = heldOut(readCsvDataset(arg, o), options, true);
        d.description = describe(std::filesystem::path(arg).filename().string(), d, "validation");
        return d;
    }
    if (kind == "idx" && !arg.empty()) {
        const std::filesystem::path dir(arg);
        const auto images = firstExisting(dir, {"train-images-idx3-ubyte", "train-images.idx3-ubyte"});
        const auto labels = firstExisting(dir, {"train-labels-idx1-ubyte", "train-labels.idx1-ubyte"});
        if (images.empty() || labels.empty()) {
            throw LoadError(arg, "", "no train-images-idx3-ubyte[.gz] and train-labels-idx1-ubyte[.gz] here");
        }
        Dataset train = loadIdxDataset(images, labels);
        scalePixelsToUnit(train);
        const auto testImages = firstExisting(dir, {"t10k-images-idx3-ubyte", "t10k-images.idx3-ubyte"});
        const auto testLabels = firstExisting(dir, {"t10k-labels-idx1-ubyte", "t10k-labels.idx1-ubyte"});
        TrainingData d;
        if (!testImages.empty() && !testLabels.empty()) {
            d.train = std::move(train);
            d.validation = loadIdxDataset(testImages, testLabels);
            scalePixelsToUnit(d.validation);
            d.description = describe(dir.filename().string(), d, "test");
        } else {
            d = heldOut(train, options, false);
            d.description = describe(dir.filename().string(), d, "validation");
        }
        return d;
    }
    throw std::invalid_argument("unknown dataset '" + std::string(spec) +
                                "' (accepted: fashion-mnist, synthetic:regression|spirals|blobs, csv:FILE, idx:DIR)");
}

}  // namespace ampstudio
