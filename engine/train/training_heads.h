#pragma once
// What training needs to find in a graph before anything is bound: the loss head (its canonical op
// name), the label variable it reads and the one data input. The trainer uses it, and so does the
// GUI to explain a model that cannot be trained before the user presses Start.
#include <set>
#include <string>

#include "graph/graph.h"
#include "train/dataset.h"

namespace ampstudio {

struct TrainingHeads {
    std::string lossOp;     // canonical: "SoftmaxOutput", "LinearRegressionOutput", ...
    std::string labelName;  // empty when the loss reads no label variable (MakeLoss)
    std::string dataName;
    std::set<std::string> inputs;  // the data and label variables: never stored in low precision
};

// Throws std::invalid_argument with a message for the user: no loss head, no data input or several.
TrainingHeads findTrainingHeads(const Graph& graph);

// Throws std::invalid_argument when the loss does not fit the dataset's task (a classification loss
// on regression targets or the reverse); `datasetName` is for the message.
void checkLossFitsTask(const std::string& lossOp, DatasetTask task, const std::string& datasetName);

}  // namespace ampstudio
