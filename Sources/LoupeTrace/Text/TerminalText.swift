/// Recorded text made safe to print on a terminal, by the rule the TUI's cell buffer uses.
///
/// Recorded URLs, headers, bodies, error messages and event text come from servers and files Loupe does not
/// control; printed raw, an ESC sequence in them can clear the screen, move the cursor, retitle the window or
/// write to the clipboard. Every CLI printer passes such text through here. The rule (as `DisplayWidth.visible`
/// in LoupeTUI, whose cells drop bidi controls as zero-width): C0 controls become their Control Pictures (ESC →
/// `␛`, NUL → `␀`, CR → `␍`), DEL becomes `␡`, and C1 controls (U+0080–U+009F, which some terminals obey as CSI
/// and OSC) become `�`, and so do the bidirectional formatting characters (U+202A–U+202E, U+2066–U+2069, U+200E,
/// U+200F, U+061C), which reorder what follows them so that a URL or a command reads as another.
/// ``line(_:)`` also shows newlines and tabs, so a value cannot fake extra lines; ``block(_:)`` keeps them (and
/// CR before LF) for bodies.
package enum TerminalText {
    /// `text` on one line with every control character made visible.
    package static func line(_ text: some StringProtocol) -> String {
        visible(text, keepingLayout: false)
    }

    /// `text` with every control character made visible except line feeds, tabs and the CR of a CRLF.
    package static func block(_ text: some StringProtocol) -> String {
        visible(text, keepingLayout: true)
    }

    /// The character a terminal is sent for `scalar`, or nil when `scalar` is safe as it is.
    package static func picture(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x00..<0x20: Unicode.Scalar(0x2400 + scalar.value)
        case 0x7F: "\u{2421}"
        case 0x80..<0xA0: "\u{FFFD}"
        case _ where isBidiControl(scalar): "\u{FFFD}"
        default: nil
        }
    }

    /// Whether `scalar` is a bidirectional embedding, override, isolate or mark: invisible, and able to show text
    /// in another order than it has.
    package static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    /// Whether `scalar` may drive a terminal (C0, DEL or C1) or reorder what it shows (bidi controls).
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        picture(for: scalar) != nil
    }

    /// `text` quoted for a POSIX shell so the command runs with exactly `text` as the argument and prints no raw
    /// control character: single quotes (`'` as `'\''`), and each control character other than a line feed or a
    /// tab spliced in as `'"$(printf '\ooo')"'`, octal escapes of its UTF-8 bytes (POSIX, unlike `$'…'`).
    package static func shellQuoted(_ text: String) -> String {
        var quoted = "'"
        // Consecutive control characters share one `printf`.
        var octal = ""
        func splice() {
            guard !octal.isEmpty else { return }
            quoted += "'\"$(printf '" + octal + "')\"'"
            octal = ""
        }
        for scalar in text.unicodeScalars {
            if isControl(scalar) && scalar != "\n" && scalar != "\t" {
                for byte in String(scalar).utf8 {
                    let digits = String(byte, radix: 8)
                    octal += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
                }
                continue
            }
            splice()
            if scalar == "'" {
                quoted += "'\\''"
            } else {
                quoted.unicodeScalars.append(scalar)
            }
        }
        splice()
        return quoted + "'"
    }

    private static func visible(_ text: some StringProtocol, keepingLayout: Bool) -> String {
        let scalars = text.unicodeScalars
        // Most text has nothing to replace: return it without rebuilding.
        guard scalars.contains(where: isControl) else { return String(text) }
        var result = String.UnicodeScalarView()
        var index = scalars.startIndex
        while index != scalars.endIndex {
            let scalar = scalars[index]
            index = scalars.index(after: index)
            let isCRLF = scalar == "\r" && index != scalars.endIndex && scalars[index] == "\n"
            if keepingLayout && (scalar == "\n" || scalar == "\t" || isCRLF) {
                result.append(scalar)
            } else {
                result.append(picture(for: scalar) ?? scalar)
            }
        }
        return String(result)
    }
}
