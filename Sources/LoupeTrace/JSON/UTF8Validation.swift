import Foundation

/// UTF-8 validated a word at a time: what decides whether a body is written to a HAR as text, and whether a JSON
/// string read without `JSONDecoder` (``PlainJSONString``) is kept.
package enum UTF8Validation {
    /// Whether `data` is well-formed UTF-8, as `String(validating:as:)` decides it (Unicode's table 3-7: no
    /// overlong forms, no surrogates, nothing past U+10FFFF).
    package static func isUTF8(_ data: Data) -> Bool {
        data.withUnsafeBytes { isUTF8($0.bindMemory(to: UInt8.self)) }
    }

    package static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while true {
            index = JSONByteScan.firstNonASCII(in: bytes, from: index)
            guard index < count else { return true }
            let length = sequenceLength(bytes, at: index)
            guard length > 0 else { return false }
            index += length
        }
    }

    /// The length of the well-formed UTF-8 sequence whose lead byte (≥ 0x80) is at `index`: 2 to 4; 0 when it is
    /// malformed (checked byte by byte, so a wrong byte is found before a missing one); -1 when the bytes end
    /// inside it.
    @inline(__always)
    package static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch bytes[index] {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        for offset in 1..<length {
            guard index + offset < bytes.count else { return -1 }
            let byte = bytes[index + offset]
            guard offset == 1 ? (low...high).contains(byte) : (0x80...0xBF).contains(byte) else { return 0 }
        }
        return length
    }
}
