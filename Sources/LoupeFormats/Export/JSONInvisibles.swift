import LoupeTrace

/// The characters Loupe's JSON output writes as `\u` escapes although JSON allows them raw: DEL, the C1 controls
/// (U+0080–U+009F: some terminals obey U+009B as CSI and U+009D as OSC), the bidirectional controls
/// ``TerminalText`` also hides, and the line and paragraph separators. `--json`, `export --har -` and
/// `replay --json` are read on terminals too; any JSON reader decodes the escapes to the same text.
package enum JSONInvisibles {
    /// Whether `scalar` is written as a `\u` escape.
    package static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x7F...0x9F, 0x2028, 0x2029: true
        default: TerminalText.isBidiControl(scalar)
        }
    }

    /// Whether UTF-8 `bytes` may hold such a character: a DEL, or the lead byte of one (0xC2 for C1, 0xD8 for
    /// U+061C, 0xE2 for the rest). Pure ASCII text is answered a word at a time.
    static func mayHold(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            // A byte ≥ 0x7F anywhere in the word: its low seven bits plus one reach 0x80, or its high bit is set.
            let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F, ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if ((word & low) &+ ones | word) & highs != 0 { break }
                index += 8
            }
        }
        while index < bytes.count {
            switch bytes[index] {
            case 0x7F, 0xC2, 0xD8, 0xE2: return true
            default: index += 1
            }
        }
        return false
    }

    /// JSON text from an encoder with those characters escaped (they can only stand inside strings).
    package static func escaped(_ json: String) -> String {
        var json = json
        guard json.withUTF8({ mayHold($0) }), json.unicodeScalars.contains(where: isEscaped) else { return json }
        var result = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard isEscaped(scalar) else {
                result.append(scalar)
                continue
            }
            result.append(contentsOf: escape(scalar).unicodeScalars)
        }
        return String(result)
    }

    /// `\u` and four lower-case hex digits, as the encoders write control characters.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
