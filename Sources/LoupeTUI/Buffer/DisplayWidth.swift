/// How many terminal columns text takes, and how unsafe text is shown.
///
/// The rules follow `wcwidth` (which ncurses uses), so a ``Buffer`` and the terminal agree on where every cell
/// lands: East Asian wide and fullwidth characters and emoji-presentation characters take 2 columns; combining
/// marks, format characters (zero-width joiners, bidi controls) take 0 and are never written on their own;
/// control characters are shown as their visible Control Pictures (`␛`, `␀`) so they cannot drive the terminal.
package enum DisplayWidth {
    /// The columns `character` takes as shown (after ``visible(_:)``).
    package static func of(_ character: Character) -> Int {
        visible(character).width
    }

    /// The columns `text` takes as shown.
    package static func of(_ text: some StringProtocol) -> Int {
        // Most of what the TUI draws is printable ASCII: one column a byte, no Unicode property lookups.
        var columns = 0
        for byte in text.utf8 {
            guard byte >= 0x20, byte < 0x7F else { return text.reduce(0) { $0 + of($1) } }
            columns += 1
        }
        return columns
    }

    /// The grapheme a terminal may safely be sent for `character`, and its width in columns (0 means: skip it).
    package static func visible(_ character: Character) -> (character: Character, width: Int) {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return (" ", 0) }
        switch first.value {
        case 0x20..<0x7F: return (character, 1)
        case 0x09: return (" ", 1)
        case 0x00..<0x20: return (Character(Unicode.Scalar(0x2400 + first.value)!), 1)
        case 0x7F: return ("\u{2421}", 1)
        case 0x80..<0xA0: return ("\u{FFFD}", 1)
        default: break
        }
        if isRegionalIndicator(first) {
            // A flag is two regional indicators, each one column wide to wcwidth.
            return (character, scalars.count > 1 ? 2 : 1)
        }
        return (character, width(of: first))
    }

    /// `text` cut to at most `columns` columns, ending in `…` when something was cut.
    package static func truncate(_ text: some StringProtocol, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if of(text) <= columns { return String(text) }
        var result = ""
        var used = 0
        for character in text {
            let width = of(character)
            if used + width > columns - 1 { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }

    /// `text` cut to at most `columns` columns from its start, beginning with `…` when something was cut: for
    /// paths, whose end names the file.
    package static func truncateLeading(_ text: some StringProtocol, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if of(text) <= columns { return String(text) }
        var kept: [Character] = []
        var used = 0
        for character in text.reversed() {
            let width = of(character)
            if used + width > columns - 1 { break }
            kept.append(character)
            used += width
        }
        return "…" + String(kept.reversed())
    }

    /// `text` padded with spaces (or cut) to exactly `columns` columns; `alignRight` pads on the left.
    package static func pad(_ text: some StringProtocol, to columns: Int, alignRight: Bool = false) -> String {
        let cut = truncate(text, to: columns)
        let padding = String(repeating: " ", count: max(0, columns - of(cut)))
        return alignRight ? padding + cut : cut + padding
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) || value == 0x200B { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    private static func isRegionalIndicator(_ scalar: Unicode.Scalar) -> Bool {
        (0x1F1E6...0x1F1FF).contains(scalar.value)
    }

    /// East Asian Wide (W) and Fullwidth (F) blocks that are not emoji.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
        0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1AFF0...0x1B2FF,
        0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
