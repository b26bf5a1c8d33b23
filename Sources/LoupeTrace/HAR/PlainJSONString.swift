/// A JSON string read without `JSONDecoder`, for the fast paths that fall back to it (``FastJSON``,
/// ``StoredJSON``): the simple escapes decoded; `nil` for a `\u` escape, a raw control character, invalid UTF-8 or
/// no closing quote, which the caller leaves to the decoder.
enum PlainJSONString {
    /// The string whose opening quote is at `index`; on success `index` is past the closing quote. Typed bytes:
    /// `String(validating:)` validates those in one pass, raw ones byte by byte.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> String? {
        index += 1
        var unescaped: [UInt8]?
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let tail = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                guard var text = unescaped else { return String(validating: tail, as: UTF8.self) }
                text.append(contentsOf: tail)
                return String(validating: text, as: UTF8.self)
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
