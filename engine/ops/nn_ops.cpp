// Shape inference of the nn ops (ops/op_spec.h lists the groups).
#include "ops/op_spec.h"

namespace ampstudio {

void addNnOpSpecs(OpSpecTable& table) { (void)table; }

}  // namespace ampstudio
