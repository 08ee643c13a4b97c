#pragma once
// The files of an MXNet checkpoint as Module.save_checkpoint writes them: `PREFIX-symbol.json` and
// `PREFIX-NNNN.params` (NNNN the epoch, four digits or more). A user drops or opens either one; the
// other is found beside it, as mx.model.load_checkpoint(prefix, epoch) would.

#include <filesystem>
#include <optional>
#include <string>

namespace ampstudio {

struct CheckpointFiles {
    std::filesystem::path symbol;
    std::optional<std::filesystem::path> params;  // absent when no sibling exists
};

// "dir/resnet" for "dir/resnet-symbol.json" or "dir/resnet-0012.params"; empty when the file name
// follows neither pattern.
std::string checkpointPrefix(const std::filesystem::path& file);

// For a symbol file: the parameters beside it with the same prefix and the highest epoch. For a
// .params file: its symbol (which must exist) and the file itself. Any other file is taken as a
// symbol without parameters. Never throws; a missing sibling is simply absent.
CheckpointFiles findCheckpointFiles(const std::filesystem::path& file);

}  // namespace ampstudio
