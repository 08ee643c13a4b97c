#pragma once
// Fashion-MNIST (Xiao, Rasul & Vollgraf 2017): 60,000 training and 10,000 test images of 28×28 grey
// pixels in 10 balanced clothing classes, as IDX files. Debian ships it as package
// `dataset-fashion-mnist` in /usr/share/datasets/fashion-mnist/:
//   train-images-idx3-ubyte.gz  train-labels-idx1-ubyte.gz  t10k-images-idx3-ubyte.gz
//   t10k-labels-idx1-ubyte.gz
// The same names without .gz (and MNIST's older `train-images.idx3-ubyte` spelling) are found too.

#include <filesystem>
#include <string_view>

#include "train/dataset.h"

namespace ampstudio {

inline constexpr std::string_view kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

struct FashionMnist {
    Dataset train;  // 60,000 samples, sampleShape {1, 28, 28}, pixel values 0..255 as f32
    Dataset test;   // 10,000 samples
};

// Throws LoadError naming the directory (and the Debian package) when a file is missing, and the
// file and place when one is malformed. Pixels are left 0..255: see scalePixelsToUnit.
FashionMnist loadFashionMnist(const std::filesystem::path& dir = kFashionMnistDir);

// True when the four files are present (a quick check for tests and the GUI's dataset list).
bool fashionMnistAvailable(const std::filesystem::path& dir = kFashionMnistDir);

}  // namespace ampstudio
