// Shape inference of the elemwise ops (ops/op_spec.h lists the groups).
#include "ops/op_spec.h"

namespace ampstudio {

void addElemwiseOpSpecs(OpSpecTable& table) { (void)table; }

}  // namespace ampstudio
