#include "formats/onnx_model_copy.h"

#include <algorithm>
#include <future>
#include <initializer_list>
#include <vector>

#include <google/protobuf/arena.h>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>

namespace ampstudio {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Every set field of `from` but those in `skip` into `to` (the same type, cleared first), unknown
// fields included: Message::CopyFrom less those fields.
void copyAllBut(const Message& from, Message& to, std::initializer_list<const FieldDescriptor*> skip) {
    to.Clear();
    const auto* in = from.GetReflection();
    const auto* out = to.GetReflection();
    std::vector<const FieldDescriptor*> fields;
    in->ListFields(from, &fields);
    for (const FieldDescriptor* f : fields) {
        if (std::find(skip.begin(), skip.end(), f) != skip.end()) continue;
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
    copyAllBut(from, to, {field(from, "raw_data")});
}

onnx::ModelProto copyWithoutInitializerData(const onnx::ModelProto& model, std::size_t threshold) {
    onnx::ModelProto copy;
    copyWithoutInitializerData(model, threshold, copy);
    return copy;
}

void copyWithoutInitializerData(const onnx::ModelProto& model, std::size_t threshold, onnx::ModelProto& copy) {
    copyAllBut(model, copy, {field(model, "graph")});
    if (!model.has_graph()) return;
    const onnx::GraphProto& from = model.graph();
    onnx::GraphProto& graph = *copy.mutable_graph();
    copyAllBut(from, graph, {field(from, "initializer"), field(from, "node")});
    // The nodes on a second thread while this one copies the initializers (each about half of a
    // large graph's copy; a protobuf arena takes allocations from any thread).
    google::protobuf::Arena* arena = copy.GetArena();
    const auto copyNodes = [&from, arena] {
        std::vector<onnx::NodeProto*> nodes(static_cast<std::size_t>(from.node_size()));
        for (int i = 0; i < from.node_size(); ++i) {
            nodes[static_cast<std::size_t>(i)] = google::protobuf::Arena::CreateMessage<onnx::NodeProto>(arena);
            *nodes[static_cast<std::size_t>(i)] = from.node(i);
        }
        return nodes;
    };
    std::future<std::vector<onnx::NodeProto*>> nodesCopied;
    constexpr int kNodesWorthAThread = 20000;
    if (from.node_size() >= kNodesWorthAThread) nodesCopied = std::async(std::launch::async, copyNodes);
    try {
        graph.mutable_initializer()->Reserve(from.initializer_size());
        for (const onnx::TensorProto& t : from.initializer()) {
            if (t.raw_data().size() > threshold) {
                copyTensorWithoutData(t, *graph.add_initializer());
            } else {
                *graph.add_initializer() = t;
            }
        }
    } catch (...) {
        if (nodesCopied.valid() && !arena) {  // (out of memory: the other thread's nodes are freed, not leaked)
            for (onnx::NodeProto* node : nodesCopied.get()) delete node;
        }
        throw;
    }
    const std::vector<onnx::NodeProto*> nodes = nodesCopied.valid() ? nodesCopied.get() : copyNodes();
    graph.mutable_node()->Reserve(from.node_size());
    for (onnx::NodeProto* node : nodes) graph.mutable_node()->AddAllocated(node);
}

}  // namespace ampstudio
