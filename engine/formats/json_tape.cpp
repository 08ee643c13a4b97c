#include "formats/json_tape.h"

#include <limits>

#include <nlohmann/json.hpp>

namespace ampstudio {

namespace {

// The byte where the nesting first goes deeper than maxDepth. Only called when the SAX parser has
// stopped there, so everything before it is well-formed JSON and a plain bracket count is exact.
std::size_t offsetOfTooDeepNesting(std::string_view text, int maxDepth) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                inString = false;
            }
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth) {
                return i;
            }
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return text.size();
}

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1, column 2: ";
// keep the reason only, and only printable ASCII: the "last read" part may hold invalid UTF-8.
std::string reasonFrom(const std::string& what) {
    std::string_view reason = what;
    if (const auto column = reason.find("column "); column != std::string_view::npos) {
        if (const auto colon = reason.find(": ", column); colon != std::string_view::npos) {
            reason.remove_prefix(colon + 2);
        }
    }
    std::string clean(reason);
    for (char& c : clean) {
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
            c = '?';
        }
    }
    return clean;
}

}  // namespace

// Receives nlohmann's SAX events and appends tokens. Containers are patched with their end and
// count when they close; the open ones are on a stack whose size is the nesting depth.
class JsonTapeBuilder {
public:
    using json = nlohmann::json;

    JsonTapeBuilder(JsonTape& tape, int maxDepth) : m_tape(tape), m_maxDepth(maxDepth) {}

    bool null() { return add(JsonTape::Kind::Null, 0, 0); }
    bool boolean(bool v) { return add(JsonTape::Kind::Bool, 0, v ? 1 : 0); }
    bool number_integer(json::number_integer_t v) {
        return addNumber(JsonTape::Kind::Int, static_cast<uint64_t>(v));
    }
    bool number_unsigned(json::number_unsigned_t v) { return addNumber(JsonTape::Kind::Uint, v); }
    bool number_float(json::number_float_t, const json::string_t& raw) {
        return addText(JsonTape::Kind::Float, raw);
    }
    bool string(json::string_t& v) { return addText(JsonTape::Kind::String, v); }
    bool key(json::string_t& v) {
        // A key is not an element of the object; undo the count addText() makes.
        const bool ok = addText(JsonTape::Kind::String, v);
        --m_open.back().count;
        return ok;
    }
    bool binary(json::binary_t&) { return false; }  // not produced by the JSON lexer
    bool start_object(std::size_t) { return open(JsonTape::Kind::Object); }
    bool start_array(std::size_t) { return open(JsonTape::Kind::Array); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
        m_errorByte = position > 0 ? position - 1 : 0;  // nlohmann counts bytes read, so 1-based
        m_error = reasonFrom(e.what());
        return false;
    }

    bool tooDeep() const { return m_tooDeep; }
    std::size_t errorByte() const { return m_errorByte; }
    const std::string& error() const { return m_error; }

private:
    struct Open {
        uint32_t token;
        uint32_t count;
    };

    // Counts and offsets fit in 32 bits: parse() rejects texts of 4 GiB and more, and there are
    // fewer tokens, and fewer string bytes, than bytes of text.
    bool add(JsonTape::Kind kind, uint32_t a, uint32_t b) {
        if (!m_open.empty()) {
            ++m_open.back().count;
        }
        m_tape.m_tokens.push_back({a, b, kind});
        return true;
    }
    bool addNumber(JsonTape::Kind kind, uint64_t value) {
        if (value <= std::numeric_limits<uint32_t>::max()) {
            return add(kind, 0, static_cast<uint32_t>(value));
        }
        m_tape.m_wideNumbers.push_back(value);
        return add(kind, 1, static_cast<uint32_t>(m_tape.m_wideNumbers.size() - 1));
    }
    bool addText(JsonTape::Kind kind, const std::string& text) {
        const auto offset = static_cast<uint32_t>(m_tape.m_strings.size());
        m_tape.m_strings += text;
        return add(kind, static_cast<uint32_t>(text.size()), offset);
    }
    bool open(JsonTape::Kind kind) {
        if (static_cast<int>(m_open.size()) >= m_maxDepth) {
            m_tooDeep = true;
            return false;
        }
        add(kind, 0, 0);
        m_open.push_back({static_cast<uint32_t>(m_tape.m_tokens.size() - 1), 0});
        return true;
    }
    bool close() {
        auto& token = m_tape.m_tokens[m_open.back().token];
        token.a = static_cast<uint32_t>(m_tape.m_tokens.size());
        token.b = m_open.back().count;
        m_open.pop_back();
        return true;
    }

    JsonTape& m_tape;
    const int m_maxDepth;
    std::vector<Open> m_open;
    bool m_tooDeep = false;
    std::size_t m_errorByte = 0;
    std::string m_error;
};

JsonTape JsonTape::parse(std::string_view text, int maxDepth) {
    // Token indices and string lengths are 32-bit; there are fewer tokens than bytes.
    if (text.size() >= std::numeric_limits<uint32_t>::max()) {
        throw JsonSyntaxError(0, "the document is larger than 4 GiB");
    }
    JsonTape tape;
    tape.m_tokens.reserve(text.size() / 8 + 1);
    tape.m_strings.reserve(text.size() / 2);
    JsonTapeBuilder builder(tape, maxDepth);
    const bool ok = nlohmann::json::sax_parse(text.data(), text.data() + text.size(), &builder);
    if (!ok) {
        if (builder.tooDeep()) {
            throw JsonSyntaxError(offsetOfTooDeepNesting(text, maxDepth),
                                  "JSON nested deeper than " + std::to_string(maxDepth) + " levels");
        }
        throw JsonSyntaxError(builder.errorByte(), builder.error());
    }
    return tape;
}

}  // namespace ampstudio
