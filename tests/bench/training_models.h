#pragma once
// The models and data the training benchmarks share (bench_training on the CPU, bench_cuda on the
// GPU), so both measure the same graphs: the MLP 784-hidden-hidden-10 and the small CNN (two conv 3x3
// + BN + relu + max-pool 2 blocks of 32 and 64 channels, FC head) on 28x28 inputs with random pixels
// and labels (throughput does not depend on the data).
#include <string>
#include <vector>

#include "graph/graph.h"
#include "train/dataset.h"

namespace ampstudio::bench {

Graph mlpModel(int hidden);
Graph cnnModel();
Dataset randomImages(int64_t samples, uint64_t seed);
// "a,b,c" -> {"a", "b", "c"} (command-line lists of models and modes).
std::vector<std::string> splitNames(const char* text);

}  // namespace ampstudio::bench
