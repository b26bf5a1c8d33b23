/// Decoded fields as `protoc --decode_raw` prints them: `1: 150`, `2: "text"`, `3 {` … `}`, fixed widths in hex,
/// strings C-escaped, two spaces a level.
public enum ProtobufText {
    /// The text of `fields`, one line a field (nested ones indented), each line ending in a newline.
    public static func text(_ fields: [ProtobufField]) -> String {
        var out = ""
        write(fields, indent: "", into: &out)
        return out
    }

    /// The fields on one line, as protobuf's single-line text format writes them: `1: 150 2: "a" 3 { 1: 2 }`.
    public static func singleLine(_ fields: [ProtobufField]) -> String {
        var out = ""
        writeLine(fields, into: &out)
        return out.hasSuffix(" ") ? String(out.dropLast()) : out
    }

    static func writeLine(_ fields: [ProtobufField], into out: inout String) {
        for field in fields {
            out += String(field.number)
            switch field.value {
            case .varint(let value): out += ": \(value) "
            case .fixed64(let value): out += ": 0x" + hex(value, width: 16) + " "
            case .fixed32(let value): out += ": 0x" + hex(UInt64(value), width: 8) + " "
            case .bytes(let bytes): out += ": \"" + escaped(bytes) + "\" "
            case .message(let inner), .group(let inner):
                out += " { "
                writeLine(inner, into: &out)
                out += "} "
            }
        }
    }

    /// `protoc --decode_raw`'s text of `bytes`, or nil when they are not a protobuf message.
    public static func decodeRaw(_ bytes: some Collection<UInt8>) -> String? {
        ProtobufWireDecoder.decode(bytes).map(text)
    }

    static func write(_ fields: [ProtobufField], indent: String, into out: inout String) {
        for field in fields {
            out += indent
            out += String(field.number)
            switch field.value {
            case .varint(let value): out += ": \(value)\n"
            case .fixed64(let value): out += ": 0x" + hex(value, width: 16) + "\n"
            case .fixed32(let value): out += ": 0x" + hex(UInt64(value), width: 8) + "\n"
            case .bytes(let bytes): out += ": \"" + escaped(bytes) + "\"\n"
            case .message(let inner), .group(let inner):
                out += " {\n"
                write(inner, indent: indent + "  ", into: &out)
                out += indent + "}\n"
            }
        }
    }

    static func hex(_ value: UInt64, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// C escapes as protobuf's `CEscape` writes them: `\n \r \t \" \' \\`, other bytes outside printable ASCII in
    /// three octal digits.
    public static func escaped(_ bytes: some Sequence<UInt8>) -> String {
        var out = ""
        for byte in bytes {
            switch byte {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x22: out += "\\\""
            case 0x27: out += "\\'"
            case 0x5C: out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let octal = String(byte, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            }
        }
        return out
    }
}
