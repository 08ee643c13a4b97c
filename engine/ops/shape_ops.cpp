// Shape inference of the shape ops (ops/op_spec.h lists the groups).
#include "ops/op_spec.h"

namespace ampstudio {

void addShapeOpSpecs(OpSpecTable& table) { (void)table; }

}  // namespace ampstudio
