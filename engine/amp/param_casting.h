#pragma once
// cast_optional_params, second half: the parameters the conversion decided to store in the target
// dtype (ConversionResult::storedInTargetDtype) are converted in the .params list, float32 ->
// float16 / bfloat16 with round-to-nearest-even, halving their bytes.

#include <set>
#include <string>

#include "amp/conversion_report.h"
#include "formats/ndarray_list.h"
#include "tensor/dtype.h"

namespace ampstudio {

// Converts every float32 array whose bare name (no arg:/aux: prefix) is in `storedInTargetDtype`
// to `target` (F16 or BF16, else std::invalid_argument). Arrays of other dtypes are left as they are
// with a warning in the report (only float32 parameters are cast); names with no array get a
// warning too. Fills report.paramsKnown, paramBytesBefore and paramBytesAfter.
void applyParamCasting(NDArrayList& params, const std::set<std::string>& storedInTargetDtype, DType target,
                       ConversionReport& report);

// What applyParamCasting would put in report.paramsKnown, paramBytesBefore and paramBytesAfter,
// without copying or converting anything: the parameter bytes before -> after the inspector and
// the status bar show while the user edits.
void fillParamBytes(const NDArrayList& params, const std::set<std::string>& storedInTargetDtype, DType target,
                    ConversionReport& report);

}  // namespace ampstudio
