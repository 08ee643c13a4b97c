#pragma once
// Running a model forward for inspection (compare, the precision debugger): bind it for inference
// on the given inputs and fill its variables: the inputs by name, the parameters from a .params list
// when one is given, else MXNet-convention initial values from a seed (the same for every graph
// with the same variable names, so an original and its conversion read the same numbers).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "exec/executor.h"
#include "formats/ndarray_list.h"
#include "graph/graph.h"

namespace ampstudio {

struct HostArray {
    Shape shape;
    std::vector<float> values;
};

// Writes float values into a tensor of any float dtype (converted on the backend).
void uploadFloats(Backend& backend, const std::vector<float>& values, const Tensor& dst);

// A .params record's values as floats (float32, float16, bfloat16; throws for other dtypes).
std::vector<float> recordValues(const NDArrayRecord& record);

// Binds `graph` for inference with the inputs' shapes.
std::unique_ptr<Executor> bindForInference(const Graph& graph, const std::map<std::string, HostArray>& inputs,
                                           Backend& backend);

// Fills every variable: inputs by name, parameters from `params` (checked against the bound shape)
// or initialised from `seed`; labels and other unnamed inputs read zeros. Variables `skip` names are
// left as they are (the caller fills them).
void loadValues(Executor& executor, const NDArrayList* params, const std::map<std::string, HostArray>& inputs,
                Backend& backend, uint64_t seed, const std::function<bool(const std::string&)>& skip = {});

}  // namespace ampstudio
