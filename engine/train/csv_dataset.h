#pragma once
// A dataset from a CSV file: a header row naming the columns, then one sample per row, every field a
// number. The column named `labelColumn` is the label (an integer class >= 0 for classification, any
// number for regression); every other column is a feature, in file order.
//
// Fields may be surrounded by spaces and by double quotes ("" inside quotes is a quote); empty lines
// and a trailing CR (Windows line ends) are ignored; a UTF-8 byte-order mark is skipped. Numbers are
// parsed with std::from_chars, so the locale never changes how "1.5" reads. Bad input is a LoadError
// naming the file, the line and column, and the reason.

#include <filesystem>
#include <string>
#include <string_view>

#include "train/dataset.h"

namespace ampstudio {

struct CsvDatasetOptions {
    std::string labelColumn = "label";
    DatasetTask task = DatasetTask::Classification;
    char delimiter = ',';
};

Dataset readCsvDataset(const std::filesystem::path& path, const CsvDatasetOptions& options = {});
// The same from text in memory; `name` stands for the file in messages.
Dataset parseCsvDataset(std::string_view text, const std::string& name,
                        const CsvDatasetOptions& options = {});

}  // namespace ampstudio
