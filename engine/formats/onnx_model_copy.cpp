#include "formats/onnx_model_copy.h"

#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

namespace ampstudio {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Every set field of `from` but `skip` into `to` (the same type, cleared first), unknown fields
// included: Message::CopyFrom less one field.
void copyAllBut(const Message& from, Message& to, const FieldDescriptor* skip) {
    to.Clear();
    const auto* in = from.GetReflection();
    const auto* out = to.GetReflection();
    std::vector<const FieldDescriptor*> fields;
    in->ListFields(from, &fields);
    for (const FieldDescriptor* f : fields) {
        if (f == skip) continue;
        if (f->is_repeated()) {
            const int n = in->FieldSize(from, f);
            for (int i = 0; i < n; ++i) {
                switch (f->cpp_type()) {
                    case FieldDescriptor::CPPTYPE_INT32: out->AddInt32(&to, f, in->GetRepeatedInt32(from, f, i)); break;
                    case FieldDescriptor::CPPTYPE_INT64: out->AddInt64(&to, f, in->GetRepeatedInt64(from, f, i)); break;
                    case FieldDescriptor::CPPTYPE_UINT32: out->AddUInt32(&to, f, in->GetRepeatedUInt32(from, f, i)); break;
                    case FieldDescriptor::CPPTYPE_UINT64: out->AddUInt64(&to, f, in->GetRepeatedUInt64(from, f, i)); break;
                    case FieldDescriptor::CPPTYPE_FLOAT: out->AddFloat(&to, f, in->GetRepeatedFloat(from, f, i)); break;
                    case FieldDescriptor::CPPTYPE_DOUBLE: out->AddDouble(&to, f, in->GetRepeatedDouble(from, f, i)); break;
                    case FieldDescriptor::CPPTYPE_BOOL: out->AddBool(&to, f, in->GetRepeatedBool(from, f, i)); break;
                    case FieldDescriptor::CPPTYPE_ENUM: out->AddEnumValue(&to, f, in->GetRepeatedEnumValue(from, f, i)); break;
                    case FieldDescriptor::CPPTYPE_STRING: out->AddString(&to, f, in->GetRepeatedString(from, f, i)); break;
                    case FieldDescriptor::CPPTYPE_MESSAGE: out->AddMessage(&to, f)->CopyFrom(in->GetRepeatedMessage(from, f, i)); break;
                }
            }
            continue;
        }
        switch (f->cpp_type()) {
            case FieldDescriptor::CPPTYPE_INT32: out->SetInt32(&to, f, in->GetInt32(from, f)); break;
            case FieldDescriptor::CPPTYPE_INT64: out->SetInt64(&to, f, in->GetInt64(from, f)); break;
            case FieldDescriptor::CPPTYPE_UINT32: out->SetUInt32(&to, f, in->GetUInt32(from, f)); break;
            case FieldDescriptor::CPPTYPE_UINT64: out->SetUInt64(&to, f, in->GetUInt64(from, f)); break;
            case FieldDescriptor::CPPTYPE_FLOAT: out->SetFloat(&to, f, in->GetFloat(from, f)); break;
            case FieldDescriptor::CPPTYPE_DOUBLE: out->SetDouble(&to, f, in->GetDouble(from, f)); break;
            case FieldDescriptor::CPPTYPE_BOOL: out->SetBool(&to, f, in->GetBool(from, f)); break;
            case FieldDescriptor::CPPTYPE_ENUM: out->SetEnumValue(&to, f, in->GetEnumValue(from, f)); break;
            case FieldDescriptor::CPPTYPE_STRING: out->SetString(&to, f, in->GetString(from, f)); break;
            case FieldDescriptor::CPPTYPE_MESSAGE: out->MutableMessage(&to, f)->CopyFrom(in->GetMessage(from, f)); break;
        }
    }
    out->MutableUnknownFields(&to)->MergeFrom(in->GetUnknownFields(from));
}

const FieldDescriptor* field(const Message& message, const char* name) {
    return message.GetDescriptor()->FindFieldByName(name);
}

}  // namespace

void copyTensorWithoutData(const onnx::TensorProto& from, onnx::TensorProto& to) {
    copyAllBut(from, to, field(from, "raw_data"));
}

onnx::ModelProto copyWithoutInitializerData(const onnx::ModelProto& model, std::size_t threshold) {
    onnx::ModelProto copy;
    copyWithoutInitializerData(model, threshold, copy);
    return copy;
}

void copyWithoutInitializerData(const onnx::ModelProto& model, std::size_t threshold, onnx::ModelProto& copy) {
    copyAllBut(model, copy, field(model, "graph"));
    if (!model.has_graph()) return;
    const onnx::GraphProto& from = model.graph();
    onnx::GraphProto& graph = *copy.mutable_graph();
    copyAllBut(from, graph, field(from, "initializer"));
    graph.mutable_initializer()->Reserve(from.initializer_size());
    for (const onnx::TensorProto& t : from.initializer()) {
        if (t.raw_data().size() > threshold) {
            copyTensorWithoutData(t, *graph.add_initializer());
        } else {
            *graph.add_initializer() = t;
        }
    }
}

}  // namespace ampstudio
