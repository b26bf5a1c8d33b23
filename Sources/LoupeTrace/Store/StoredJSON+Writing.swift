import Foundation

/// Header lists written as `JSONEncoder` (`[.sortedKeys, .withoutEscapingSlashes]`) writes them, byte for byte:
/// `[{"name":"…","value":"…"},…]`, strings escaped as ``PrettyJSON`` escapes them (the encoder's rules). An encoder
/// per list was a good part of what storing many exchanges (an import) cost; ``StoredJSON`` reads this shape back
/// on its fast path.
extension StoredJSON {
    static func text(of headers: [TraceHeader]) -> String {
        var json = PrettyJSON()
        json.bytes.reserveCapacity(headers.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 24 })
        write(headers, to: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// ``text(of:)-([TraceHeader])``'s bytes, appended to `json`'s: the store's insert writes them straight into
    /// the buffer it binds texts from, with no `String` made and copied again (DECISIONS 403).
    static func write(_ headers: [TraceHeader], to json: inout PrettyJSON) {
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
    }

    /// A map (an attempt's notes, an event's attributes) as `JSONEncoder` writes a `[String: String]` with the same
    /// options: `{"key":"value",…}`, keys in the byte order of their UTF-8 (as ``PrettyJSON`` sorts them). The
    /// recorder writes one for every attempt; an encoder's generic machinery cost more than the rest of the row.
    static func text(of map: [String: String]) -> String {
        var json = PrettyJSON()
        json.bytes.reserveCapacity(map.reduce(2) { $0 + $1.key.utf8.count + $1.value.utf8.count + 6 })
        json.bytes.append(UInt8(ascii: "{"))
        for (index, (key, value)) in PrettyJSON.sortedByKey(map).enumerated() {
            if index > 0 { json.bytes.append(UInt8(ascii: ",")) }
            json.string(key)
            json.bytes.append(UInt8(ascii: ":"))
            json.string(value)
        }
        json.bytes.append(UInt8(ascii: "}"))
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// A linked exchange's source as `JSONEncoder` writes it with the same options: `{"app":"…","host":"…","pid":N}`.
    /// Every exchange the live link's listener stores has one, and an encoder per row was a tenth of the listener's
    /// CPU (DECISIONS 282).
    static func text(of source: TraceSource) -> String {
        var json = PrettyJSON()
        json.bytes.reserveCapacity(source.app.utf8.count + source.host.utf8.count + 48)
        append(#"{"app":"#, to: &json)
        json.string(source.app)
        append(#","host":"#, to: &json)
        json.string(source.host)
        append(#","pid":"#, to: &json)
        json.bytes.append(contentsOf: String(source.pid).utf8)
        json.bytes.append(UInt8(ascii: "}"))
        return String(decoding: json.bytes, as: UTF8.self)
    }

    private static func append(_ text: StaticString, to json: inout PrettyJSON) {
        text.withUTF8Buffer { json.bytes.append(contentsOf: $0) }
    }
}
