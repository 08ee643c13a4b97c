#pragma once
// Building ONNX models in tests and benchmarks with libonnx's protobuf classes: the values and
// nodes every ONNX test makes, one way.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "tensor/seeded_random.h"

namespace ampstudio::onnx_test {

// A tensor value of `type`; no dims leaves the shape (and the rank) unknown.
inline onnx::ValueInfoProto* addValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* values,
                                      const std::string& name, std::initializer_list<int64_t> dims,
                                      int32_t type = onnx::TensorProto::FLOAT) {
    onnx::ValueInfoProto* value = values->Add();
    value->set_name(name);
    auto* tensor = value->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(type);
    for (const int64_t d : dims) tensor->mutable_shape()->add_dim()->set_dim_value(d);
    return value;
}

// A scalar: a shape without dims (what a Loop body's iteration count and condition are).
inline onnx::ValueInfoProto* addScalar(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* values,
                                       const std::string& name, int32_t type) {
    onnx::ValueInfoProto* value = addValue(values, name, {}, type);
    value->mutable_type()->mutable_tensor_type()->mutable_shape();
    return value;
}

// A node of the default domain; an empty name leaves it unnamed.
inline onnx::NodeProto* addNode(onnx::GraphProto* graph, const std::string& op, const std::string& name,
                                std::initializer_list<std::string> inputs, std::initializer_list<std::string> outputs) {
    onnx::NodeProto* node = graph->add_node();
    node->set_op_type(op);
    if (!name.empty()) node->set_name(name);
    for (const auto& i : inputs) node->add_input(i);
    for (const auto& o : outputs) node->add_output(o);
    return node;
}

// An INT attribute on `node` (Cast's `to`, Concat's `axis` ...).
inline void setInt(onnx::NodeProto* node, const std::string& name, int64_t value) {
    auto* attr = node->add_attribute();
    attr->set_name(name);
    attr->set_type(onnx::AttributeProto::INT);
    attr->set_i(value);
}

// A model of IR version 8 importing the default domain at `opset`, its graph named `graphName`.
inline onnx::ModelProto emptyModelNamed(const std::string& graphName, int opset = 17) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(opset);
    model.mutable_graph()->set_name(graphName);
    return model;
}

// The element count of `dims`.
inline int64_t elementCount(const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (const int64_t d : dims) n *= d;
    return n;
}

// A float32 initializer of `dims` without values (the caller fills float_data or raw_data).
inline onnx::TensorProto* addFloatInitializer(onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& dims) {
    onnx::TensorProto* t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (const int64_t d : dims) t->add_dims(d);
    return t;
}

// A float32 initializer of `dims` filled with scale * (uniform01 - 0.5) from `random`.
inline onnx::TensorProto* addSeededFloats(onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& dims,
                                          SeededRandom& random, double scale) {
    onnx::TensorProto* t = addFloatInitializer(graph, name, dims);
    const int64_t n = elementCount(dims);
    for (int64_t i = 0; i < n; ++i) t->add_float_data(float(scale * (random.uniform01() - 0.5)));
    return t;
}

}  // namespace ampstudio::onnx_test
