/// Finds the next byte a JSON string reader or writer must stop at, eight bytes to a step.
///
/// Bodies make most of a HAR's bytes, and nearly all of them need nothing done: a byte-at-a-time loop spent most of
/// an export of large bodies testing each one. Each step loads eight bytes as one word and tests
/// all of them at once with the SWAR "has a byte less than n" and "has a zero byte" forms (Hacker's Delight 6-1):
/// in each, a borrow only starts at a byte that matches, so the lowest flagged byte is always a true match even
/// where bytes above it are flagged falsely, and the lowest flagged byte of several masks OR-ed together is the
/// first byte matching any of them.
@_spi(JSON) public enum JSONByteScan {
    @inlinable static var ones: UInt64 { 0x0101_0101_0101_0101 }
    @inlinable static var highs: UInt64 { 0x8080_8080_8080_8080 }

    /// The index of the first byte at or after `start` that a JSON string cannot hold as it is (`"`, `\`, or a
    /// control character below 0x20), or of the first byte ≥ 0x80 too when `orNonASCII`; `bytes.count` if none.
    @inlinable @inline(__always)
    public static func firstStop(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, orNonASCII: Bool = false) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = start
        while index + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            var mask = stops(word)
            if orNonASCII { mask |= word & highs }
            if mask != 0 { return index + mask.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < count, !isStop(bytes[index], orNonASCII: orNonASCII) { index += 1 }
        return index
    }

    /// The index of the first `"` at or after `start`, or of the first `"` or `\` when `orBackslash`;
    /// `bytes.count` if none. What a reader that does not check a string's contents stops at: control characters
    /// and non-ASCII bytes need no test, which saves three operations a word on the hottest loop of the tokenizer.
    @inlinable @inline(__always)
    public static func firstQuote(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, orBackslash: Bool) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = start
        while index + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            var mask = (quote &- ones) & ~quote
            if orBackslash {
                let backslash = word ^ (ones &* 0x5C)
                mask |= (backslash &- ones) & ~backslash
            }
            mask &= highs
            if mask != 0 { return index + mask.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < count, bytes[index] != 0x22, !orBackslash || bytes[index] != 0x5C { index += 1 }
        return index
    }

    /// Copies `bytes` from `start` on to `destination` up to the first byte ``firstStop(in:from:orNonASCII:)``
    /// stops at, and returns that byte's index (`bytes.count` if none): the bytes before it are copied, it is not.
    /// Scanning and copying in the same step saves a copy call per run, and JSON text escapes a quote every few
    /// bytes. `destination` needs room for `bytes.count - start` bytes: a step stores a whole word even when only
    /// part of it is kept, so bytes past the stop may be overwritten (never past that room).
    @inline(__always)
    package static func copyToStop(
        from bytes: UnsafeBufferPointer<UInt8>, start: Int, to destination: UnsafeMutablePointer<UInt8>
    ) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        let raw = UnsafeRawPointer(base)
        let out = UnsafeMutableRawPointer(destination) - start
        let count = bytes.count
        var index = start
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            out.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
            let mask = stops(UInt64(littleEndian: word))
            if mask != 0 { return index + mask.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < count {
            let byte = bytes[index]
            if isStop(byte, orNonASCII: false) { return index }
            out.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
            index += 1
        }
        return count
    }

    /// The index of the first byte ≥ 0x80 at or after `start`, or `bytes.count`.
    @inline(__always)
    package static func firstNonASCII(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = start
        while index + 8 <= count {
            let mask = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & highs
            if mask != 0 { return index + UInt64(littleEndian: mask).trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < count, bytes[index] < 0x80 { index += 1 }
        return index
    }

    /// One byte of the tail shorter than a word: what ``stops(_:)`` flags, or ≥ 0x80 when `orNonASCII`.
    @inlinable @inline(__always)
    static func isStop(_ byte: UInt8, orNonASCII: Bool) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || (orNonASCII && byte >= 0x80)
    }

    /// The high bit of each byte of `word` (in memory order from the least significant byte) that is `"`, `\` or
    /// below 0x20; bits above the lowest may be set falsely.
    @inlinable @inline(__always)
    static func stops(_ word: UInt64) -> UInt64 {
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        return (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
    }
}

extension JSONByteScan {
    /// The JSON escape of a byte a writer stopped at (`"`, `\` or a control character below 0x20): `\"`, `\\`,
    /// `\b \t \n \f \r`, else `\u00xx` in lowercase hex, as `JSONEncoder` writes them. Its bytes in a word, the
    /// first in the lowest byte, and how many there are (2 or 6): the one escape table of ``PrettyJSON``, the
    /// store's header lists and HAR output.
    @inline(__always)
    package static func escape(_ byte: UInt8) -> (word: UInt64, count: Int) {
        let backslash = UInt64(UInt8(ascii: "\\"))
        let second: UInt8
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): second = byte
        case 0x08: second = UInt8(ascii: "b")
        case 0x09: second = UInt8(ascii: "t")
        case 0x0A: second = UInt8(ascii: "n")
        case 0x0C: second = UInt8(ascii: "f")
        case 0x0D: second = UInt8(ascii: "r")
        default:
            let high = byte >> 4, low = byte & 0x0F
            let hex = { (digit: UInt8) -> UInt64 in UInt64(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10) }
            let prefix = backslash | UInt64(UInt8(ascii: "u")) << 8 | UInt64(UInt8(ascii: "0")) << 16 | UInt64(UInt8(ascii: "0")) << 24
            return (prefix | hex(high) << 32 | hex(low) << 40, 6)
        }
        return (backslash | UInt64(second) << 8, 2)
    }

    /// Writes ``escape(_:)`` of `byte` at `out`, which has room for 6 bytes, and returns how many it wrote.
    @inline(__always)
    package static func writeEscape(of byte: UInt8, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let (word, count) = escape(byte)
        withUnsafeBytes(of: word.littleEndian) { UnsafeMutableRawPointer(out).copyMemory(from: $0.baseAddress!, byteCount: count) }
        return count
    }
}
