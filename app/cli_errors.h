#pragma once
// How convert, compare and tune turn an exception into one line on stderr and an exit status: a
// mistake on the command line or an unwritable output is a usage error (1), a model, lists or
// parameter file that cannot be used is bad input (2).
#include <filesystem>

namespace ampstudio::cli {

// Call inside `catch (...)`: writes "ampstudio-cli: <message>" (naming `model` where the message
// is about it) and returns the exit status. Rethrows what it does not know.
int reportCurrentException(const std::filesystem::path& model);

}  // namespace ampstudio::cli
