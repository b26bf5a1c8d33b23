import Foundation

/// Header lists written as `JSONEncoder` (`[.sortedKeys, .withoutEscapingSlashes]`) writes them, byte for byte:
/// `[{"name":"…","value":"…"},…]`, strings escaped as ``PrettyJSON`` escapes them (the encoder's rules). An encoder
/// per list was a good part of what storing many exchanges (an import) cost; ``StoredJSON`` reads this shape back
/// on its fast path.
extension StoredJSON {
    static func text(of headers: [TraceHeader]) -> String {
        var json = PrettyJSON()
        json.bytes.reserveCapacity(headers.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 24 })
        json.bytes.append(UInt8(ascii: "["))
        for (index, header) in headers.enumerated() {
            if index > 0 { json.bytes.append(UInt8(ascii: ",")) }
            append(#"{"name":"#, to: &json)
            json.string(header.name)
            append(#","value":"#, to: &json)
            json.string(header.value)
            json.bytes.append(UInt8(ascii: "}"))
        }
        json.bytes.append(UInt8(ascii: "]"))
        return String(decoding: json.bytes, as: UTF8.self)
    }

    private static func append(_ text: StaticString, to json: inout PrettyJSON) {
        text.withUTF8Buffer { json.bytes.append(contentsOf: $0) }
    }
}
