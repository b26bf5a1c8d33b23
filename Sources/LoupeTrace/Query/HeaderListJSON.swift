import Foundation

/// Reads the header lists `RowWriter` stores (`[{"name":"…","value":"…"},…]`, sorted keys) without `JSONDecoder`,
/// whose per-row cost adds up because `~h` may read every row of a big store (DECISIONS.md, 27). Anything else
/// falls back to `JSONDecoder`.
package enum HeaderListJSON {
    package static func decode(_ text: String) -> [TraceHeader]? {
        var reader = Reader(bytes: Array(text.utf8))
        if let headers = reader.headers() { return headers }
        return try? JSONDecoder().decode([TraceHeader].self, from: Data(text.utf8))
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func headers() -> [TraceHeader]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var headers: [TraceHeader] = []
            if take(UInt8(ascii: "]")) { return index == bytes.count ? headers : nil }
            repeat {
                guard take(UInt8(ascii: "{")), string() == "name", take(UInt8(ascii: ":")), let name = string(),
                      take(UInt8(ascii: ",")), string() == "value", take(UInt8(ascii: ":")), let value = string(),
                      take(UInt8(ascii: "}"))
                else { return nil }
                headers.append(TraceHeader(name: name, value: value))
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")), index == bytes.count else { return nil }
            return headers
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A JSON string; `nil` for anything unusual (the caller then falls back to `JSONDecoder`).
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    default: return nil  // \u escapes: rare, leave them to JSONDecoder
                    }
                default:
                    out.append(byte)
                }
            }
            return nil
        }
    }
}
