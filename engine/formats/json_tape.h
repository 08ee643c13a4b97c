#pragma once
// A parsed JSON document as one flat tape of tokens, in document order. The symbol JSON reader needs
// what a DOM such as nlohmann::json loses or makes expensive: the order of keys and repeated keys
// (dmlc's reader lets a later "attr" replace an earlier "attrs"), a hard nesting limit (hostile files),
// and no allocation per value (a 1M-node graph is tens of millions of values). nlohmann's SAX parser
// does the lexing and UTF-8 validation; it is iterative, so deep nesting cannot overflow the stack.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ampstudio {

// Syntax errors, invalid UTF-8, too deep nesting: the byte offset where parsing stopped and why.
class JsonSyntaxError : public std::runtime_error {
public:
    JsonSyntaxError(std::size_t byte, const std::string& reason) : std::runtime_error(reason), m_byte(byte) {}
    std::size_t byte() const { return m_byte; }

private:
    std::size_t m_byte;
};

class JsonTape {
public:
    enum class Kind : uint8_t { Null, Bool, Int, Uint, Float, String, Object, Array };

    // Parses one JSON value (RFC 8259, strict: nothing but whitespace may follow it). Objects and
    // arrays nested deeper than maxDepth are an error.
    static JsonTape parse(std::string_view text, int maxDepth);

    // Tokens are addressed by index; the document's value is token 0. An object's members follow it
    // as key (a String token), value, key, value ...; an array's elements follow it in order.
    Kind kind(uint32_t at) const { return m_tokens[at].kind; }
    // The token after the whole value at `at` (for a container: after all it contains).
    uint32_t next(uint32_t at) const { return m_tokens[at].kind >= Kind::Object ? m_tokens[at].a : at + 1; }
    // Members of an object or elements of an array.
    uint32_t size(uint32_t at) const { return m_tokens[at].b; }
    bool boolean(uint32_t at) const { return m_tokens[at].b != 0; }
    // Kind::Uint: a non-negative integer; Kind::Int: a negative one.
    uint64_t unsignedValue(uint32_t at) const {
        return m_tokens[at].a == 0 ? m_tokens[at].b : m_wideNumbers[m_tokens[at].b];
    }
    int64_t signedValue(uint32_t at) const { return static_cast<int64_t>(unsignedValue(at)); }
    // Kind::String (values and keys) and Kind::Float (the number's text as written).
    std::string_view text(uint32_t at) const { return {m_strings.data() + m_tokens[at].b, m_tokens[at].a}; }

    // Token indices of an object's members: for (uint32_t k = first(obj); k < next(obj); k = next(k + 1))
    // visits each key k with its value at k + 1.
    uint32_t first(uint32_t container) const { return container + 1; }

private:
    friend class JsonTapeBuilder;
    // 12 bytes: a 1M-node graph is over ten million tokens, and their pages are most of what
    // parsing touches. Every index and offset fits in 32 bits (the text is under 4 GiB).
    struct Token {
        uint32_t a;  // containers: index after the last contained token; strings: byte length;
                     // numbers: 1 when b indexes m_wideNumbers, else 0
        uint32_t b;  // containers: element count; strings: offset in m_strings; numbers: the value
        Kind kind;
    };
    std::vector<Token> m_tokens;
    std::vector<uint64_t> m_wideNumbers;  // integers that do not fit in 32 bits (negative ones too)
    std::string m_strings;
};

}  // namespace ampstudio
