#pragma once
// A training set named the way the CLI's --data and the GUI's dataset list name it:
//   fashion-mnist         Debian's dataset-fashion-mnist: 60,000 training images, the 10,000 test
//                         images as the validation set; pixels scaled to 0..1
//   synthetic:NAME        regression | spirals | blobs (synthetic_datasets.h, default options);
//                         20 % held out for validation
//   csv:FILE              numeric columns, the label column named by labelColumn; 20 % held out
//   idx:DIR               MNIST-style IDX files in DIR (train-images-idx3-ubyte[.gz] and
//                         train-labels-idx1-ubyte[.gz], t10k-* as validation when present, else 20 %
//                         held out); pixels scaled to 0..1
// Feature standardisation (synthetic, csv) is fitted on the training part and applied to both.
#include <cstdint>
#include <string>
#include <string_view>

#include "train/dataset.h"

namespace ampstudio {

struct TrainingData {
    Dataset train;
    Dataset validation;
    std::string description;  // "Fashion-MNIST: 60000 training, 10000 test samples of 1x28x28"
};

struct DataSourceOptions {
    uint64_t seed = 0;  // the held-out split and synthetic generation
    std::string labelColumn = "label";
    DatasetTask csvTask = DatasetTask::Classification;
    double validationFraction = 0.2;
};

// Throws LoadError for a file problem, std::invalid_argument for an unknown spec (listing the forms).
TrainingData loadTrainingData(std::string_view spec, const DataSourceOptions& options = {});

}  // namespace ampstudio
