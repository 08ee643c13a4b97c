#pragma once
// The inputs a model is run on to measure a conversion (`compare`, `tune`, the window's precision
// view): random values by shape (seeded, uniform 0..1), or the first samples of an image dataset
// (Fashion-MNIST as Debian installs it, or an IDX images file), scaled to 0..1. One place, so the
// CLI and the GUI read the same numbers for the same request.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec/model_run.h"
#include "formats/ndarray_list.h"
#include "formats/onnx_program.h"
#include "graph/graph.h"

namespace ampstudio {

// A request that cannot be met: a bad shape, no data input, a dataset that does not fit the input.
// The message is for the user as it stands.
class CalibrationError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

struct CalibrationSpec {
    // "NAME=SHAPE" ("data=8,3,224,224", "(8, 784)" brackets allowed): random values.
    std::vector<std::string> randomInputs;
    // NumPy files (.npz archives or .npy arrays): each array fills the input of its name (a file's
    // only array fills the data input whatever its name); an input in several files is their
    // concatenation along the first axis. Used whole: `samples` does not cut them.
    std::vector<std::string> numpyFiles;
    // "fashion-mnist", the path of an IDX images file, or a training-data spec ("synthetic:blobs",
    // "csv:FILE", "idx:DIR", as dataset_source.h names them; their validation part): fills the
    // model's data input; a random input of the same name gives the per-sample layout, the batch
    // comes from `samples`.
    std::optional<std::string> dataset;
    int64_t samples = 8;
    uint64_t seed = 1;
    // What a message calls the random inputs ("--input" on the command line).
    std::string randomInputLabel = "--input";
};

// The model's data input: the graph input called "data", else the first that is not a label;
// empty when there is none.
std::string dataInputName(const Graph& graph);

// A random input that fits the model, as calibrationInputs() reads it ("data=8,784"), for a form to
// start from: the data input's first consumer decides the layout — a FullyConnected takes its
// weight's input width, a Convolution its weight's channels (times num_group) on 224x224, or 28x28
// for one channel, as Fashion-MNIST. `batch` rows. Empty when no consumer tells (or no parameters
// give a FullyConnected's width).
std::string suggestedRandomInput(const Graph& graph, const NDArrayList* params, int64_t batch = 8);

// Throws CalibrationError for a request that cannot be met, LoadError for an unreadable dataset.
std::map<std::string, HostArray> calibrationInputs(const Graph& graph, const CalibrationSpec& spec);

// The same request for an ONNX model run by the ONNX runner: every value in the dtype the model
// declares for its input (an integer NumPy array keeps its exact values: token ids), random inputs
// uniform(0, 1) (integer inputs 0 or 1), the dataset into the first required input; required inputs
// whose dims are all fixed are random when not named. Throws CalibrationError / LoadError.
std::map<std::string, HostTensor> onnxCalibrationInputs(const OnnxProgram& program, const CalibrationSpec& spec);

// Random inputs for an ONNX model's required inputs, as onnxCalibrationInputs reads them
// ("input_ids=8,32; attention_mask=8,32"): each declared dim as it is, a symbolic first dim `batch`,
// any other symbolic dim 32 (a sequence of that length; edit it to the model's). Empty when the
// model has no required input or declares no dims for one.
std::string suggestedOnnxRandomInputs(const OnnxProgram& program, int64_t batch = 8);

// "64,784", "(64, 784)", "[64,784]" -> {64, 784}; `what` names it in the CalibrationError.
Shape parseInputShape(const std::string& text, const std::string& what);

}  // namespace ampstudio
