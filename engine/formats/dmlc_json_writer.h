#pragma once
// The byte layout of dmlc::JSONWriter, which NNVM's SaveJSON uses, so that a symbol this program
// saves diffs cleanly against the one MXNet saves. The writer keeps a stack of open scopes, each
// multi-line or inline and counting its elements:
//   separator: "\n" + 2 spaces per open scope when the innermost scope is multi-line (or none is open);
//   object key / array item: ", " when not the first, then the separator, then `"key": ` / the item;
//   end: the separator (after closing the scope) when the scope was multi-line and not empty.
// Callers choose multi-line as dmlc's handlers do: structs always, string maps with more than one
// entry, arrays with more than 10 elements or whose elements are not plain old data.
// The compact layout writes the same tokens with no whitespace at all.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ampstudio {

class JsonTape;

class DmlcJsonWriter {
public:
    enum class Layout { Dmlc, Compact };

    DmlcJsonWriter(std::string& out, Layout layout) : m_out(out), m_compact(layout == Layout::Compact) {}

    void beginObject(bool multiLine) { open('{', multiLine); }
    void endObject() { close('}'); }
    void beginArray(bool multiLine) { open('[', multiLine); }
    void endArray() { close(']'); }
    // Starts a member of the innermost (object) scope; write its value next.
    void key(std::string_view key);
    // Starts an element of the innermost (array) scope; write it next.
    void item();

    void string(std::string_view s) { appendJsonString(m_out, s); }
    void number(uint64_t value);
    // Text that is already JSON (a number as written in the input).
    void raw(std::string_view json) { m_out += json; }

    // A whole value from a tape, laid out as dmlc lays out the container types NNVM stores in graph
    // attributes: arrays of numbers and booleans inline up to 10 elements, other arrays multi-line,
    // objects multi-line when they have more than one member.
    void value(const JsonTape& tape, uint32_t at);

    // dmlc escapes \r \n \\ \t \" only; other control characters would make invalid JSON, so they
    // become \u00XX here. Everything else, UTF-8 included, is copied.
    static void appendJsonString(std::string& out, std::string_view s);

private:
    struct Scope {
        bool multiLine;
        uint32_t count;
    };
    void open(char bracket, bool multiLine);
    void close(char bracket);
    void separator();

    std::string& m_out;
    const bool m_compact;
    std::vector<Scope> m_scopes;
};

}  // namespace ampstudio
