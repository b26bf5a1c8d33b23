import Foundation

/// Writes a header list as the store keeps it, byte for byte what `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` gives: `[{"name":"…","value":"…"},…]`, with `"`, `\` and control characters escaped
/// (`\b \t \n \f \r`, else `\u00xx`) and every other character as it is. Every stored exchange has two such
/// lists, and an encoder's containers and boxing per list were a good part of what writing one cost.
extension StoredJSON {
    static func headerList(_ headers: [TraceHeader]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headers.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 22 })
        bytes.append(UInt8(ascii: "["))
        for (index, header) in headers.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: #"{"name":"#.utf8)
            appendString(header.name, to: &bytes)
            bytes.append(contentsOf: #","value":"#.utf8)
            appendString(header.value, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0..<0x20:
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
