#include "cli_errors.h"

#include <algorithm>
#include <iostream>
#include <string>

#include "amp/amp_lists.h"
#include "amp/conversion.h"
#include "cli_commands.h"
#include "cli_inputs.h"
#include "formats/atomic_file.h"
#include "formats/load_error.h"
#include "exec/onnx/onnx_ops.h"
#include "ops/op_error.h"

namespace ampstudio::cli {

int reportCurrentException(const std::filesystem::path& model, int invalidArgument) {
    auto say = [](const std::string& message, int status) {
        std::cerr << "ampstudio-cli: " << message << '\n';
        return status;
    };
    try {
        throw;
    } catch (const UsageError& e) {
        return say(e.what(), kUsageError);
    } catch (const SaveError& e) {
        return say(e.what(), kUsageError);
    } catch (const LoadError& e) {
        return say(e.what(), kBadInput);
    } catch (const AmpListsError& e) {
        std::string message = e.what();
        std::replace(message.begin(), message.end(), '\n', ';');
        return say("operator lists: " + message, kBadInput);
    } catch (const ConversionError& e) {
        return say(model.string() + ": " + e.what(), kBadInput);
    } catch (const OpError& e) {
        return say(e.what(), kBadInput);
    } catch (const OnnxRunError& e) {  // an ONNX node that cannot run, an input that does not fit
        return say(model.string() + ": " + e.what(), kBadInput);
    } catch (const std::invalid_argument& e) {
        return say(e.what(), invalidArgument);
    } catch (const std::runtime_error& e) {  // the device: --backend cuda without one, out of memory
        return say(e.what(), kUsageError);
    }
}

}  // namespace ampstudio::cli
