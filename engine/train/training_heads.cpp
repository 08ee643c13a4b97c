#include "train/training_heads.h"

#include <stdexcept>
#include <vector>

#include "ops/mxnet_op_facts.h"
#include "ops/op_spec.h"
#include "ops/variable_roles.h"

namespace ampstudio {

TrainingHeads findTrainingHeads(const Graph& graph) {
    TrainingHeads found;
    for (const NodeEntry& head : graph.heads) {
        const Node& node = graph.nodes[head.node];
        const OpSpec* spec = node.isVariable() ? nullptr : opSpecs().find(node.op);
        if (spec != nullptr && spec->kind == OpKind::Loss) {
            found.lossOp = std::string(MxnetOpFacts::instance().canonicalName(node.op));
            if (node.inputs.size() >= 2 && graph.nodes[node.inputs[1].node].isVariable()) {
                found.labelName = graph.nodes[node.inputs[1].node].name;
            }
            break;
        }
    }
    if (found.lossOp.empty()) {
        throw std::invalid_argument(
            "the model has no loss head to train (SoftmaxOutput, LinearRegressionOutput, LogisticRegressionOutput, "
            "MAERegressionOutput or MakeLoss among its outputs)");
    }
    const std::vector<VariableRole> roles = classifyVariables(graph);
    std::vector<std::string> dataInputs;
    for (NodeId n = 0; n < graph.size(); ++n) {
        if (graph.nodes[n].isVariable() && roles[n] == VariableRole::Input) {
            found.inputs.insert(graph.nodes[n].name);
            if (graph.nodes[n].name != found.labelName) {
                dataInputs.push_back(graph.nodes[n].name);
            }
        }
    }
    if (dataInputs.size() != 1) {
        std::string names;
        for (const std::string& n : dataInputs) {
            names += (names.empty() ? "" : ", ") + n;
        }
        throw std::invalid_argument(dataInputs.empty() ? std::string("the model has no data input")
                                                       : "the model has several data inputs (" + names +
                                                             "); training feeds exactly one");
    }
    found.dataName = dataInputs[0];
    return found;
}

void checkLossFitsTask(const std::string& lossOp, DatasetTask task, const std::string& datasetName) {
    const bool classification = task == DatasetTask::Classification;
    if (lossOp == "SoftmaxOutput" && !classification) {
        throw std::invalid_argument("the model ends in SoftmaxOutput (classification) but '" + datasetName +
                                    "' is a regression dataset");
    }
    if (lossOp != "SoftmaxOutput" && lossOp != "MakeLoss" && classification) {
        throw std::invalid_argument("the model ends in " + lossOp + " (regression) but '" + datasetName +
                                    "' is a classification dataset");
    }
}

}  // namespace ampstudio
