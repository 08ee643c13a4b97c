// Developer tool, NOT part of the AMP Studio build (CMake does not see this file).
//
// A tiny shared library loaded (via ctypes) into a Python process that has
// already imported mxnet 1.9.1 from the pip wheel.  It reads nnvm's operator
// registry inside the wheel's libmxnet.so and calls an operator's registered
// FInferType exactly the way MXNet's AMP pass (src/nnvm/low_precision_pass.cc,
// ReducePrecision) does:
//
//     std::vector<int> in_types(node->inputs.size(), -1);
//     std::vector<int> out_types(node->num_outputs(), -1);
//     if (infertype.count(node->op())) {
//       in_types[0] = T;
//       bool ok = infertype[node->op()](node->attrs, &in_types, &out_types);
//
// Built by tests/differential/probe_dtype_inference.py with
//   g++ -std=c++17 -shared -fPIC -D_GLIBCXX_USE_CXX11_ABI=0 \
//       -I<wheel>/mxnet/include probe_finfertype_shim.cc <wheel>/mxnet/libmxnet.so
//
// ABI notes (the 1.9.1 wheel is built with GCC 4.8-era libstdc++ conventions):
//  * std::string is the old COW string -> compile with _GLIBCXX_USE_CXX11_ABI=0
//    (the exported symbols are e.g. _ZN4nnvm2Op10GetAttrMapERKSs).
//  * std::function's invoker in that build takes the arguments BY VALUE
//    (nm shows `_M_invoke(std::_Any_data const&, nnvm::Graph)`), while GCC >= 7
//    passes them as forwarding references (`_ArgTypes&&...`).  Calling a
//    std::function object created inside libmxnet through GCC 12's operator()
//    would therefore pass `std::vector<int>**` where the callee expects
//    `std::vector<int>*`.  We call the stored invoker pointer directly with the
//    old signature instead (layout of std::function is identical in both:
//    _Any_data[16], _M_manager, _M_invoker).
//  * std::unordered_map grew a member between those libstdc++ versions, so
//    sizeof(nnvm::NodeAttrs) differs; we only touch NodeAttrs::op (offset 0)
//    and pass NodeAttrs by reference, never reading fields after `dict`.
//    Input counts therefore come from Python (len(symbol.list_inputs())).

#include <nnvm/op.h>
#include <nnvm/node.h>
#include <nnvm/op_attr_types.h>
#include <nnvm/symbolic.h>

#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

struct RawFunction {  // layout of libstdc++'s std::function (all versions)
  unsigned char functor[16];
  void* manager;
  void* invoker;
};
static_assert(sizeof(RawFunction) == sizeof(std::function<void()>),
              "unexpected std::function layout");

using OldInferInvoker = bool (*)(const void* functor, const nnvm::NodeAttrs& attrs,
                                 std::vector<int>* in, std::vector<int>* out);
using OldNumInvoker = uint32_t (*)(const void* functor, const nnvm::NodeAttrs& attrs);

const nnvm::NodeAttrs& AttrsOf(void* sym_handle) {
  auto* sym = static_cast<nnvm::Symbol*>(sym_handle);
  // Node's first member is NodeAttrs (no vtable), see nnvm/node.h
  return sym->outputs.at(0).node->attrs;
}

uint32_t CallNum(const std::function<uint32_t(const nnvm::NodeAttrs&)>& f,
                 const nnvm::NodeAttrs& attrs) {
  const auto* raw = reinterpret_cast<const RawFunction*>(&f);
  auto inv = reinterpret_cast<OldNumInvoker>(raw->invoker);
  return inv(raw->functor, attrs);
}

void CopyErr(const char* msg, char* err, int errlen) {
  if (err == nullptr || errlen <= 0) return;
  std::strncpy(err, msg, errlen - 1);
  err[errlen - 1] = '\0';
}

}  // namespace

extern "C" {

const char* ampprobe_op_name(const void* op_handle) {
  return static_cast<const nnvm::Op*>(op_handle)->name.c_str();
}

int ampprobe_has_finfertype(const void* op_handle) {
  static auto& infertype = nnvm::Op::GetAttr<nnvm::FInferType>("FInferType");
  return infertype.count(static_cast<const nnvm::Op*>(op_handle)) ? 1 : 0;
}

int ampprobe_is_backward(const void* op_handle) {
  static auto& isbw = nnvm::Op::GetAttr<nnvm::TIsBackward>("TIsBackward");
  return isbw.get(static_cast<const nnvm::Op*>(op_handle), false) ? 1 : 0;
}

// The symbol's single node: its op's (total, not just visible) output count,
// as Node::num_outputs() computes it.  -1 on error.
int ampprobe_num_outputs(void* sym_handle) {
  try {
    const nnvm::NodeAttrs& attrs = AttrsOf(sym_handle);
    const nnvm::Op* op = attrs.op;
    if (op == nullptr) return 1;
    if (op->get_num_outputs == nullptr) return static_cast<int>(op->num_outputs);
    return static_cast<int>(CallNum(op->get_num_outputs, attrs));
  } catch (...) {
    return -1;
  }
}

int ampprobe_num_inputs(void* sym_handle) {
  try {
    const nnvm::NodeAttrs& attrs = AttrsOf(sym_handle);
    const nnvm::Op* op = attrs.op;
    if (op == nullptr) return 0;
    if (op->get_num_inputs == nullptr) return static_cast<int>(op->num_inputs);
    return static_cast<int>(CallNum(op->get_num_inputs, attrs));
  } catch (...) {
    return -1;
  }
}

// Calls FInferType on the symbol's node with the given in/out vectors (caller
// pre-fills them, e.g. in[0]=T and -1 elsewhere).  Results are written back;
// *n_in / *n_out receive the sizes after the call (callee may resize; at most
// cap entries are written).
// Returns 1 (returned true), 0 (returned false), -1 (threw; err filled),
// -2 (no FInferType registered).
int ampprobe_call_infertype(void* sym_handle, int* n_in, int* in_types, int* n_out,
                            int* out_types, int cap, char* err, int errlen) {
  static auto& infertype = nnvm::Op::GetAttr<nnvm::FInferType>("FInferType");
  try {
    const nnvm::NodeAttrs& attrs = AttrsOf(sym_handle);
    if (attrs.op == nullptr || !infertype.count(attrs.op)) return -2;
    const nnvm::FInferType& f = infertype[attrs.op];
    std::vector<int> in(in_types, in_types + *n_in);
    std::vector<int> out(out_types, out_types + *n_out);
    const auto* raw = reinterpret_cast<const RawFunction*>(&f);
    if (raw->manager == nullptr) return -2;  // empty std::function
    auto inv = reinterpret_cast<OldInferInvoker>(raw->invoker);
    bool ok = inv(raw->functor, attrs, &in, &out);
    *n_in = static_cast<int>(in.size());
    *n_out = static_cast<int>(out.size());
    for (size_t i = 0; i < in.size() && static_cast<int>(i) < cap; ++i) in_types[i] = in[i];
    for (size_t i = 0; i < out.size() && static_cast<int>(i) < cap; ++i) out_types[i] = out[i];
    return ok ? 1 : 0;
  } catch (const std::exception& e) {
    CopyErr(e.what(), err, errlen);
    return -1;
  } catch (...) {
    CopyErr("unknown C++ exception", err, errlen);
    return -1;
  }
}

}  // extern "C"
