import Foundation

/// Header lists written as `JSONEncoder` (`[.sortedKeys, .withoutEscapingSlashes]`) writes them, byte for byte:
/// `[{"name":"…","value":"…"},…]`, strings escaped as ``PrettyJSON`` escapes them (the encoder's rules). An encoder
/// per list was a good part of what storing many exchanges (an import) cost; ``StoredJSON`` reads this shape back
/// on its fast path.
extension StoredJSON {
    package static func text(of headers: [TraceHeader]) -> String {
        var json = PrettyJSON()
        json.bytes.reserveCapacity(headers.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 24 })
        write(headers, to: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// ``text(of:)-([TraceHeader])``'s bytes, appended to `json`'s: the store's insert writes them straight into
    /// the buffer it binds texts from, with no `String` made and copied again.
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

    /// The most bytes ``write(_:into:)`` writes for `headers`: every byte escaped as `\u00xx` (six), and room for the
    /// last word ``JSONByteScan/copyToStop(from:start:to:)`` stores past a string's end.
    static func textBound(of headers: [TraceHeader]) -> Int {
        var bound = 2
        for header in headers { bound += 24 + 6 * (header.name.utf8.count + header.value.utf8.count) }
        return bound
    }

    /// ``write(_:to:)``'s bytes, written through a pointer with room for ``textBound(of:)`` bytes; returns how many.
    ///
    /// The store's insert writes two lists an exchange, of a few short headers each: through `PrettyJSON`'s array
    /// every piece was an `append` (a uniqueness and a capacity check, a generic copy), even for a list
    /// of two headers. Here each string's runs are copied a word at a time with the scan that finds the bytes to
    /// escape (``JSONByteScan/copyToStop(from:start:to:)``), and the rest are single stores.
    /// `text(of:)` stays on `PrettyJSON`: tests hold this writer to it, byte for byte.
    static func write(_ headers: [TraceHeader], into out: UnsafeMutablePointer<UInt8>) -> Int {
        var at = 0
        out[at] = UInt8(ascii: "[")
        at += 1
        // Indexed in place: a `for` loop copied each header out, retaining and releasing both its strings.
        headers.withUnsafeBufferPointer { headers in
            for index in headers.indices {
                if index > 0 {
                    out[at] = UInt8(ascii: ",")
                    at += 1
                }
                at = put(#"{"name":"#, to: out, at: at)
                at = putEscaped(headers[index].name, to: out, at: at)
                at = put(#","value":"#, to: out, at: at)
                at = putEscaped(headers[index].value, to: out, at: at)
                out[at] = UInt8(ascii: "}")
                at += 1
            }
        }
        out[at] = UInt8(ascii: "]")
        return at + 1
    }

    /// `text`'s bytes (8 to 15 of them, as both prefixes): two words, the second overlapping the first.
    @inline(__always)
    private static func put(_ text: StaticString, to out: UnsafeMutablePointer<UInt8>, at: Int) -> Int {
        let count = text.utf8CodeUnitCount
        let from = UnsafeRawPointer(text.utf8Start), to = UnsafeMutableRawPointer(out + at)
        to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
        to.storeBytes(of: from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), toByteOffset: count - 8,
                      as: UInt64.self)
        return at + count
    }

    /// `text` as a JSON string, quoted and escaped exactly as `PrettyJSON.string(_:)` writes it.
    private static func putEscaped(_ text: String, to out: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        if let end = text.utf8.withContiguousStorageIfAvailable({ putEscaped($0, to: out, at: start) }) { return end }
        var text = text
        return text.withUTF8 { putEscaped($0, to: out, at: start) }
    }

    /// The loop is `HARBytes.string(_:)`'s, with the escape table shared (``JSONByteScan/escape(_:)``), but not the
    /// loop itself: here the row has room for every escape up front (``textBound(of:)``), while the HAR writer grows
    /// its buffer only at an escape, since its strings are bodies of megabytes.
    private static func putEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        var at = start
        out[at] = UInt8(ascii: "\"")
        at += 1
        var runStart = 0
        while true {
            let stop = JSONByteScan.copyToStop(from: utf8, start: runStart, to: out + at)
            at += stop - runStart
            guard stop < utf8.count else { break }
            let byte = utf8[stop]
            runStart = stop + 1
            at += JSONByteScan.writeEscape(of: byte, to: out + at)
        }
        out[at] = UInt8(ascii: "\"")
        return at + 1
    }

    /// A map (an attempt's notes, an event's attributes) as `JSONEncoder` writes a `[String: String]` with the same
    /// options: `{"key":"value",…}`, keys in the byte order of their UTF-8 (as ``PrettyJSON`` sorts them). The
    /// recorder writes one for every attempt; an encoder's generic machinery cost more than the rest of the row.
    package static func text(of map: [String: String]) -> String {
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
    /// CPU.
    package static func text(of source: TraceSource) -> String {
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
