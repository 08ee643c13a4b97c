#include "formats/dmlc_json_writer.h"

#include <charconv>

#include "formats/json_tape.h"

namespace ampstudio {

void DmlcJsonWriter::open(char bracket, bool multiLine) {
    m_out += bracket;
    m_scopes.push_back({multiLine, 0});
}

void DmlcJsonWriter::close(char bracket) {
    const Scope scope = m_scopes.back();
    m_scopes.pop_back();
    if (scope.multiLine && scope.count != 0) {
        separator();
    }
    m_out += bracket;
}

void DmlcJsonWriter::separator() {
    if (m_compact) {
        return;
    }
    if (m_scopes.empty() || m_scopes.back().multiLine) {
        m_out += '\n';
        m_out.append(m_scopes.size() * 2, ' ');
    }
}

void DmlcJsonWriter::key(std::string_view key) {
    item();
    appendJsonString(m_out, key);
    m_out += m_compact ? ":" : ": ";
}

void DmlcJsonWriter::item() {
    if (m_scopes.back().count++ != 0) {
        m_out += m_compact ? "," : ", ";
    }
    separator();
}

void DmlcJsonWriter::number(uint64_t value) {
    char buffer[24];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    m_out.append(buffer, end);
}

void DmlcJsonWriter::value(const JsonTape& tape, uint32_t at) {
    switch (tape.kind(at)) {
        case JsonTape::Kind::Null:
            raw("null");
            break;
        case JsonTape::Kind::Bool:
            raw(tape.boolean(at) ? "true" : "false");
            break;
        case JsonTape::Kind::Uint:
            number(tape.unsignedValue(at));
            break;
        case JsonTape::Kind::Int: {
            char buffer[24];
            const auto end = std::to_chars(buffer, buffer + sizeof buffer, tape.signedValue(at)).ptr;
            m_out.append(buffer, end);
            break;
        }
        case JsonTape::Kind::Float:
            raw(tape.text(at));
            break;
        case JsonTape::Kind::String:
            string(tape.text(at));
            break;
        case JsonTape::Kind::Object:
            beginObject(tape.size(at) > 1);
            for (uint32_t k = tape.first(at); k < tape.next(at); k = tape.next(k + 1)) {
                key(tape.text(k));
                value(tape, k + 1);
            }
            endObject();
            break;
        case JsonTape::Kind::Array: {
            bool plain = true;
            for (uint32_t e = tape.first(at); e < tape.next(at) && plain; e = tape.next(e)) {
                const auto kind = tape.kind(e);
                plain = kind == JsonTape::Kind::Bool || kind == JsonTape::Kind::Int ||
                        kind == JsonTape::Kind::Uint || kind == JsonTape::Kind::Float;
            }
            beginArray(tape.size(at) > 10 || !plain);
            for (uint32_t e = tape.first(at); e < tape.next(at); e = tape.next(e)) {
                item();
                value(tape, e);
            }
            endArray();
            break;
        }
    }
}

void DmlcJsonWriter::appendJsonString(std::string& out, std::string_view s) {
    out += '"';
    std::size_t run = 0;  // start of the characters not yet copied: most strings need no escape at all
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') {
            continue;
        }
        out.append(s, run, i - run);
        run = i + 1;
        switch (c) {
            case '\r':
                out += "\\r";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\t':
                out += "\\t";
                break;
            case '"':
                out += "\\\"";
                break;
            default: {
                static constexpr char kHex[] = "0123456789abcdef";
                out += "\\u00";
                out += kHex[c >> 4];
                out += kHex[c & 0xf];
            }
        }
    }
    out.append(s, run, s.size() - run);
    out += '"';
}

}  // namespace ampstudio
