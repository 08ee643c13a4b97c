#pragma once
// The one error every loader throws on bad input: it names the file, the place in it and the reason,
// so that the CLI can print one line and the GUI one dialog. Loaders never crash, hang or make a
// huge allocation on hostile input; they throw this.

#include <stdexcept>
#include <string>

namespace ampstudio {

class LoadError : public std::runtime_error {
public:
    // file: the path or a display name; where: "byte 1032", "node 17 ('fc1')", "line 3, column 9" ...
    LoadError(std::string file, std::string where, std::string reason)
        : std::runtime_error(file + ": " + (where.empty() ? std::string() : where + ": ") + reason),
          m_file(std::move(file)),
          m_where(std::move(where)),
          m_reason(std::move(reason)) {}

    const std::string& file() const { return m_file; }
    const std::string& where() const { return m_where; }
    const std::string& reason() const { return m_reason; }

private:
    std::string m_file;
    std::string m_where;
    std::string m_reason;
};

}  // namespace ampstudio
