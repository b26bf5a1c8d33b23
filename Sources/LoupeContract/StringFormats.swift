/// The string formats a contract checks: RFC 3339 `date-time` and `date`, and `uuid` in its hyphenated form.
/// Every other format is not checked (Documentation/Contract.md lists them).
enum StringFormats {
    static func valid(_ string: String, _ format: SchemaNode.StringFormat) -> Bool {
        let bytes = Array(string.utf8)
        switch format {
        case .uuid: return uuid(bytes)
        case .date: return bytes.count == 10 && date(bytes[...])
        case .dateTime: return dateTime(bytes)
        }
    }

    /// `8-4-4-4-12` hex digits, either case.
    static func uuid(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !isHex(byte) {
                return false
            }
        }
        return true
    }

    /// `YYYY-MM-DD` naming a real day (29 February only in a leap year).
    static func date(_ bytes: ArraySlice<UInt8>) -> Bool {
        let b = Array(bytes)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              let year = number(b[0..<4]), let month = number(b[5..<7]), let day = number(b[8..<10]),
              (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    /// RFC 3339 `full-date "T" full-time`: `2026-12-06T17:11:07.5Z`, `…+01:00`; `T` and `Z` in either case.
    static func dateTime(_ b: [UInt8]) -> Bool {
        guard b.count >= 20, date(b[0..<10]), b[10] | 0x20 == UInt8(ascii: "t"), time(b[11..<19]) else { return false }
        var index = 19
        if b[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < b.count, isDigit(b[index]) { index += 1 }
            guard index > start, index < b.count else { return false }
        }
        if b[index] | 0x20 == UInt8(ascii: "z") { return index + 1 == b.count }
        guard b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"), b.count - index == 6,
              b[index + 3] == UInt8(ascii: ":"), let hours = number(b[(index + 1)..<(index + 3)]),
              let minutes = number(b[(index + 4)..<(index + 6)]) else { return false }
        return hours <= 23 && minutes <= 59
    }

    /// `HH:MM:SS`.
    private static func time(_ bytes: ArraySlice<UInt8>) -> Bool {
        let b = Array(bytes)
        guard b.count == 8, b[2] == UInt8(ascii: ":"), b[5] == UInt8(ascii: ":"), let hours = number(b[0..<2]),
              let minutes = number(b[3..<5]), let seconds = number(b[6..<8]) else { return false }
        return hours <= 23 && minutes <= 59 && seconds <= 59
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }
}
