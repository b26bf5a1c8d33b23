import Foundation

/// Byte-level helpers shared by the JSON layout pass (``JSONReindenter``), the line builder (``JSONLineSource``)
/// and ``TextLines``; bytes are compared as literals (`0x22` is `"`, `0x5C` a backslash).
enum JSONBytes {
    /// Where the string opening at `start` ends (after its closing quote, or at `limit`), and whether it closed.
    /// Quotes are found with `memchr` (strings are most of a JSON body's bytes); one preceded by an odd run of
    /// backslashes is escaped.
    static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> (index: Int, terminated: Bool) {
        guard let base = bytes.baseAddress else { return (limit, false) }
        var index = start + 1
        while index < limit {
            guard let found = memchr(base + index, 0x22, limit - index) else { break }
            let quote = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
            var before = quote - 1
            while before > start, bytes[before] == 0x5C { before -= 1 }
            if (quote - 1 - before) % 2 == 0 { return (quote + 1, true) }
            index = quote + 1
        }
        return (limit, false)
    }

    static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int? = nil) -> Int {
        let limit = limit ?? bytes.count
        var index = start
        while index < limit {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return index
            }
        }
        return index
    }

    static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x2D, 0x2B, 0x2E, 0x65, 0x45: true  // 0-9 - + . e E
        default: false
        }
    }

    /// Whether `byte` is or may start a control character in UTF-8 (C0, DEL, or the lead byte of C1): such tokens
    /// go through `TerminalText`; the rest cannot drive a terminal, and skipping the check keeps large bodies fast.
    static func mayBeControl(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == 0xC2
    }
}
