#pragma once
// Building ONNX models in tests and benchmarks with libonnx's protobuf classes: the values and
// nodes every ONNX test makes, one way.

#include <cstdint>
#include <initializer_list>
#include <string>

#include <onnx/onnx_pb.h>

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

}  // namespace ampstudio::onnx_test
