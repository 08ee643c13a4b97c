#pragma once
// `inspect --node NAME`: what the GUI's node inspector shows, on stdout (text, or JSON with --json).
#include "cli_commands.h"
#include "formats/model_file.h"

namespace ampstudio::cli {

// Converts `model` with the options in args.conversion and prints args.node (which must be set).
// Throws UsageError when no node has that name, and what the conversion throws.
int printNode(const ModelDocument& model, const InspectArgs& args);

}  // namespace ampstudio::cli
