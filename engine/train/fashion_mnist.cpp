#include "train/fashion_mnist.h"

#include <array>
#include <optional>
#include <string>
#include <system_error>

#include "formats/load_error.h"
#include "train/idx_file.h"

namespace ampstudio {
namespace {

// The class names of the dataset's README, in label order.
const std::vector<std::string> kClassNames = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                              "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

// prefix "train-images", idx "idx3" → the spellings in which the file is distributed.
std::optional<std::filesystem::path> findFile(const std::filesystem::path& dir, const std::string& prefix,
                                              const std::string& idx) {
    const std::array<std::string, 4> names = {prefix + "-" + idx + "-ubyte.gz", prefix + "-" + idx + "-ubyte",
                                              prefix + "." + idx + "-ubyte.gz",
                                              prefix + "." + idx + "-ubyte"};
    for (const auto& name : names) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(dir / name, ec)) {
            return dir / name;
        }
    }
    return std::nullopt;
}

std::filesystem::path requireFile(const std::filesystem::path& dir, const std::string& prefix,
                                  const std::string& idx) {
    if (auto found = findFile(dir, prefix, idx)) {
        return *found;
    }
    throw LoadError(dir.string(), "",
                    "no " + prefix + "-" + idx +
                        "-ubyte[.gz]: Fashion-MNIST is not there (on Debian, install "
                        "the package dataset-fashion-mnist)");
}

Dataset loadPart(const std::filesystem::path& dir, const std::string& part, const std::string& name) {
    Dataset data = loadIdxDataset(requireFile(dir, part + "-images", "idx3"),
                                  requireFile(dir, part + "-labels", "idx1"));
    if (data.sampleShape != std::vector<int64_t>{1, 28, 28}) {
        throw LoadError(dir.string(), part, "expected 28 x 28 images");
    }
    if (data.classCount > 10) {
        throw LoadError(
            dir.string(), part,
            "labels go up to " + std::to_string(data.classCount - 1) + "; Fashion-MNIST has 10 classes");
    }
    data.name = name;
    data.classCount = 10;
    data.classNames = kClassNames;
    return data;
}

}  // namespace

FashionMnist loadFashionMnist(const std::filesystem::path& dir) {
    return FashionMnist{loadPart(dir, "train", "fashion-mnist (train)"),
                        loadPart(dir, "t10k", "fashion-mnist (test)")};
}

bool fashionMnistAvailable(const std::filesystem::path& dir) {
    return findFile(dir, "train-images", "idx3") && findFile(dir, "train-labels", "idx1") &&
           findFile(dir, "t10k-images", "idx3") && findFile(dir, "t10k-labels", "idx1");
}

}  // namespace ampstudio
