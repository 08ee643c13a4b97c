#pragma once
// How every subcommand turns an exception into one line on stderr and an exit status: a
// mistake on the command line or an unwritable output is a usage error (1), a model, lists or
// parameter file that cannot be used is bad input (2).
#include <filesystem>

#include "cli_commands.h"

namespace ampstudio::cli {

// Call inside `catch (...)`: writes "ampstudio-cli: <message>" (naming `model` where the message
// is about it) and returns the exit status. Rethrows what it does not know. `invalidArgument` is the
// status of a std::invalid_argument: bad input where it comes from a file, a usage error where
// the subcommand's option values are what the engine rejects (train's precision, schedule, scaler).
int reportCurrentException(const std::filesystem::path& model, int invalidArgument = kBadInput);

}  // namespace ampstudio::cli
