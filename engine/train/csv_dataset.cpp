#include "train/csv_dataset.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>
#include <vector>

#include "formats/load_error.h"
#include "formats/node_place.h"

namespace ampstudio {
namespace {

struct Field {
    std::string text;
    std::size_t column;  // 1-based character column where the field starts
};

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

class CsvParser {
public:
    CsvParser(std::string_view text, std::string name, char delimiter)
        : m_text(text), m_name(std::move(name)), m_delimiter(delimiter) {
        if (m_text.starts_with("\xEF\xBB\xBF")) {
            m_text.remove_prefix(3);
        }
    }

    [[noreturn]] void fail(std::size_t column, const std::string& reason) const {
        throw LoadError(
            m_name,
            "line " + std::to_string(m_line) + (column > 0 ? ", column " + std::to_string(column) : ""),
            reason);
    }

    // The next non-empty line split into fields; false at the end of the text.
    bool next(std::vector<Field>& fields) {
        for (;;) {
            if (m_pos >= m_text.size()) {
                return false;
            }
            const std::size_t end = std::min(m_text.find('\n', m_pos), m_text.size());
            std::string_view line = m_text.substr(m_pos, end - m_pos);
            m_pos = end + 1;
            ++m_line;
            if (line.ends_with('\r')) {
                line.remove_suffix(1);
            }
            if (trim(line).empty()) {
                continue;
            }
            split(line, fields);
            return true;
        }
    }

    std::size_t line() const { return m_line; }
    const std::string& name() const { return m_name; }

private:
    void split(std::string_view line, std::vector<Field>& fields) const {
        fields.clear();
        std::size_t i = 0;
        for (;;) {
            Field field{{}, i + 1};
            std::size_t start = i;
            while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) {
                ++start;
            }
            if (start < line.size() && line[start] == '"') {
                std::size_t j = start + 1;
                for (;;) {
                    if (j >= line.size()) {
                        fail(start + 1, "a quoted field is not closed on this line");
                    }
                    if (line[j] == '"') {
                        if (j + 1 < line.size() && line[j + 1] == '"') {
                            field.text += '"';
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    field.text += line[j++];
                }
                i = j + 1;
                while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
                    ++i;
                }
                if (i < line.size() && line[i] != m_delimiter) {
                    fail(i + 1, "unexpected text after a quoted field");
                }
            } else {
                const std::size_t end = std::min(line.find(m_delimiter, i), line.size());
                field.text = std::string(trim(line.substr(i, end - i)));
                i = end;
            }
            fields.push_back(std::move(field));
            if (i >= line.size()) {
                return;
            }
            ++i;  // the delimiter
        }
    }

    std::string_view m_text;
    std::string m_name;
    char m_delimiter;
    std::size_t m_pos = 0;
    std::size_t m_line = 0;
};

std::string quoteName(std::string_view s) {
    return "'" + displayNodeName(s) + "'";
}

}  // namespace

Dataset parseCsvDataset(std::string_view text, const std::string& name, const CsvDatasetOptions& options) {
    CsvParser parser(text, name, options.delimiter);
    std::vector<Field> fields;
    if (!parser.next(fields)) {
        throw LoadError(name, "line 1", "the file is empty; expected a header row naming the columns");
    }
    std::vector<std::string> header;
    std::size_t labelIndex = fields.size();
    std::string columns;
    for (std::size_t c = 0; c < fields.size(); ++c) {
        header.push_back(fields[c].text);
        columns += (c == 0 ? "" : ", ") + quoteName(fields[c].text);
        if (fields[c].text == options.labelColumn) {
            if (labelIndex != fields.size()) {
                parser.fail(fields[c].column,
                            "the label column " + quoteName(options.labelColumn) + " appears twice");
            }
            labelIndex = c;
        }
    }
    if (labelIndex == fields.size()) {
        parser.fail(0, "no column named " + quoteName(options.labelColumn) +
                           " for the label (the columns are " + columns + ")");
    }
    if (header.size() < 2) {
        parser.fail(0, "the only column is the label; a dataset needs at least one feature column");
    }

    Dataset out;
    out.name = name;
    out.task = options.task;
    out.sampleShape = {static_cast<int64_t>(header.size() - 1)};
    for (std::size_t c = 0; c < header.size(); ++c) {
        if (c != labelIndex) {
            out.featureNames.push_back(header[c]);
        }
    }
    int64_t largestLabel = -1;
    while (parser.next(fields)) {
        if (fields.size() != header.size()) {
            parser.fail(0, std::to_string(fields.size()) + " fields, but the header has " +
                               std::to_string(header.size()) + " columns");
        }
        for (std::size_t c = 0; c < fields.size(); ++c) {
            const std::string& t = fields[c].text;
            const std::string where = "column " + quoteName(header[c]);
            if (c == labelIndex && options.task == DatasetTask::Classification) {
                int64_t label = 0;
                const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), label);
                if (t.empty() || ec != std::errc() || end != t.data() + t.size() || label < 0 ||
                    label > 1'000'000) {
                    parser.fail(fields[c].column,
                                "the label " + quoteName(t) + " in " + where +
                                    " is not a class number (an integer from 0 to 1000000)");
                }
                out.labels.push_back(static_cast<int32_t>(label));
                largestLabel = std::max(largestLabel, label);
                continue;
            }
            float value = 0.0f;
            const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
            if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
                parser.fail(fields[c].column,
                            (t.empty() ? std::string("an empty field") : quoteName(t)) + " in " + where +
                                " is not a number" +
                                (ec == std::errc::result_out_of_range ? " in the float range" : ""));
            }
            if (!std::isfinite(value)) {
                parser.fail(fields[c].column, quoteName(t) + " in " + where + " is not a finite number");
            }
            if (c == labelIndex) {
                out.targets.push_back(value);
            } else {
                out.features.push_back(value);
            }
        }
    }
    if (out.size() == 0) {
        throw LoadError(name, "line " + std::to_string(parser.line() + 1), "no data rows after the header");
    }
    out.classCount = options.task == DatasetTask::Classification ? static_cast<int32_t>(largestLabel + 1) : 0;
    return out;
}

Dataset readCsvDataset(const std::filesystem::path& path, const CsvDatasetOptions& options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::error_code ec;
        throw LoadError(path.string(), "",
                        std::filesystem::exists(path, ec) ? "cannot be read" : "no such file");
    }
    std::ostringstream text;
    text << in.rdbuf();
    Dataset out = parseCsvDataset(text.str(), path.string(), options);
    out.name = path.filename().string();
    return out;
}

}  // namespace ampstudio
