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
            let lead = bytes[index]
            // The allowed range of the second byte depends on the first; later ones are 80...BF.
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard index + length <= count, (low...high).contains(bytes[index + 1]) else { return false }
            for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return false }
            index += length
        }
    }
}
