/// A JSON string read without `JSONDecoder`, for the fast paths that fall back to it (``FastJSON``,
/// ``StoredJSON``): the simple escapes decoded; `nil` for a `\u` escape, a raw control character, invalid UTF-8 or
/// no closing quote, which the caller leaves to the decoder.
enum PlainJSONString {
    /// The string whose opening quote is at `index`; on success `index` is past the closing quote. `validUTF8`
    /// says `bytes` are known to be UTF-8 (a Swift `String`'s): a string cut from them at its quotes is too.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int, validUTF8: Bool = false) -> String? {
        index += 1
        var unescaped: [UInt8]?
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let tail = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                guard var text = unescaped else { return validUTF8 ? String(decoding: tail, as: UTF8.self) : validated(tail) }
                text.append(contentsOf: tail)
                return validUTF8 ? String(decoding: text, as: UTF8.self) : text.withUnsafeBufferPointer(validated)
            }
            guard byte >= 0x20 else { return nil }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            guard index + 1 < bytes.count, let decoded = escaped(bytes[index + 1]) else { return nil }
            unescaped = (unescaped ?? []) + UnsafeBufferPointer(rebasing: bytes[runStart..<index])
            unescaped?.append(decoded)
            index += 2
            runStart = index
        }
        return nil
    }

    /// `String(validating:as:)`, which looks up generic metadata on every call (a tenth of an export's reading).
    private static func validated(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        HARBodyBytes.isUTF8(utf8) ? String(decoding: utf8, as: UTF8.self) : nil
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
