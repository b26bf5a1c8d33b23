/// A JSON string read without `JSONDecoder`, for the fast paths that fall back to it (``FastJSON``,
/// ``StoredJSON``): the simple escapes decoded; `nil` for a `\u` escape, a raw control character, invalid UTF-8 or
/// no closing quote, which the caller leaves to the decoder.
package enum PlainJSONString {
    /// The string whose opening quote is at `index`; on success `index` is past the closing quote. `validUTF8`
    /// says `bytes` are known to be UTF-8 (a Swift `String`'s): a string cut from them at its quotes is too.
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, validUTF8: Bool = false) -> String? {
        index += 1
        // Filled from the first escape on, appended in place (a body of JSON text in a HAR escapes every quote
        // it holds); empty while there has been none, as an escape always adds its byte.
        var unescaped: [UInt8] = []
        var runStart = index
        while true {
            index = JSONByteScan.firstStop(in: bytes, from: index)
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let tail = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                guard !unescaped.isEmpty else { return validUTF8 ? String(decoding: tail, as: UTF8.self) : validated(tail) }
                unescaped.append(contentsOf: tail)
                return validUTF8 ? String(decoding: unescaped, as: UTF8.self) : unescaped.withUnsafeBufferPointer(validated)
            }
            guard byte == UInt8(ascii: "\\") else { return nil }  // a control character
            guard index + 1 < bytes.count, let decoded = escaped(bytes[index + 1]) else { return nil }
            unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            unescaped.append(decoded)
            index += 2
            runStart = index
        }
    }

    /// `String(validating:as:)`, which looks up generic metadata on every call (a tenth of an export's reading).
    private static func validated(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        UTF8Validation.isUTF8(utf8) ? String(decoding: utf8, as: UTF8.self) : nil
    }

    private static func escaped(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): byte
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }
}
