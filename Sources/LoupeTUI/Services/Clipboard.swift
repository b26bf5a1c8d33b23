import Foundation

/// Copying text to the user's clipboard through the terminal, with xterm's OSC 52 sequence:
/// `ESC ] 52 ; c ; <base64 of the UTF-8 text> BEL`. It works over SSH, because the terminal, not the host, owns
/// the clipboard.
///
/// - Size: a sequence is at most 100,000 bytes (hterm's `OSC_52_MAX_SEQUENCE`, the limit copy tools use), so
///   text of up to 74,994 UTF-8 bytes. Longer text gets no sequence at all: several terminals drop or cut an
///   oversized one silently, and half a curl command on the clipboard is worse than none. (xterm takes more;
///   tmux caps any sequence at 1 MB; some terminals take only a few KB.)
/// - tmux: from tmux 3.3 on, the plain sequence is sent; tmux takes it when `set-clipboard` is `on` (it then
///   keeps a paste buffer and forwards the copy to the outer terminal). tmux 3.3 also requires
///   `allow-passthrough on` for the DCS passthrough wrapper, so wrapping would need more configuration, not less;
///   both options default to off, so the help says to `set -g set-clipboard on`. Before 3.3 (no
///   `TERM_PROGRAM_VERSION` of 3.3 or later), passthrough was always allowed, so the sequence is wrapped:
///   `ESC P tmux; <sequence with each ESC doubled> ESC \`. Only one form is ever sent: kitty can append
///   successive OSC 52 writes, so sending both could paste the text twice.
/// - GNU screen (without tmux) is not handled: it needs the sequence cut into 768-byte DCS chunks, and its
///   terminfo has no `Ms`, so ``isLikelySupported(environment:terminfoHasMs:)`` says no there.
package enum OSC52 {
    /// The longest sequence sent, framing included.
    package static let maximumSequenceLength = 100_000

    /// The bytes that put `text` on the clipboard, or `nil` when `text` is empty or too long for one sequence.
    package static func sequence(for text: String, environment: [String: String]) -> String? {
        guard !text.isEmpty else { return nil }
        let payload = Data(text.utf8).base64EncodedString()
        let plain = "\u{1B}]52;c;" + payload + "\u{07}"
        guard plain.utf8.count <= maximumSequenceLength else { return nil }
        guard needsPassthrough(environment) else { return plain }
        return "\u{1B}Ptmux;" + plain.replacingOccurrences(of: "\u{1B}", with: "\u{1B}\u{1B}") + "\u{1B}\\"
    }

    /// Whether the terminal probably acts on OSC 52, so the TUI can say "copied" or say why not.
    ///
    /// Terminals never answer a clipboard write, so this is a guess, in this order: inside tmux, yes (it depends
    /// on tmux's options, which the help names); a terminal that sets `TERM` or `TERM_PROGRAM` to a name known to
    /// copy (kitty, Ghostty, Alacritty, foot, WezTerm, Contour, Rio, iTerm2) or its own marker variable
    /// (`KITTY_WINDOW_ID`, `WEZTERM_PANE`, `ALACRITTY_WINDOW_ID`, `GHOSTTY_RESOURCES_DIR`, and Windows
    /// Terminal's `WT_SESSION`), yes; Apple Terminal, VTE terminals (GNOME Terminal, Tilix; `VTE_VERSION`), the
    /// Linux console and `dumb`, no; otherwise the terminfo `Ms` capability decides — many terminals claim
    /// `xterm-256color`, whose entry has `Ms`, so it comes last.
    ///
    /// - Parameter terminfoHasMs: whether the terminal's terminfo entry has the `Ms` (set selection) capability.
    package static func isLikelySupported(environment: [String: String], terminfoHasMs: Bool) -> Bool {
        func value(_ name: String) -> String { environment[name] ?? "" }
        if !value("TMUX").isEmpty { return true }
        let term = value("TERM")
        if knownTermPrefixes.contains(where: { term.hasPrefix($0) }) { return true }
        switch value("TERM_PROGRAM") {
        case "iTerm.app", "WezTerm", "ghostty": return true
        case "Apple_Terminal": return false
        default: break
        }
        if !value("VTE_VERSION").isEmpty { return false }
        if markerVariables.contains(where: { !value($0).isEmpty }) { return true }
        if term.isEmpty || term == "dumb" || term == "linux" { return false }
        return terminfoHasMs
    }

    /// `TERM` values set by terminals that handle OSC 52 by default.
    static let knownTermPrefixes = ["xterm-kitty", "xterm-ghostty", "alacritty", "foot", "wezterm", "contour", "rio"]

    /// Variables only such terminals set.
    static let markerVariables = ["KITTY_WINDOW_ID", "WEZTERM_PANE", "ALACRITTY_WINDOW_ID", "GHOSTTY_RESOURCES_DIR", "WT_SESSION"]

    /// Inside a tmux older than 3.3, which passes DCS passthrough on without being asked.
    static func needsPassthrough(_ environment: [String: String]) -> Bool {
        guard let tmux = environment["TMUX"], !tmux.isEmpty else { return false }
        guard environment["TERM_PROGRAM"] == "tmux", let version = environment["TERM_PROGRAM_VERSION"] else {
            // tmux has set TERM_PROGRAM_VERSION since 3.2; without it this tmux is older still.
            return true
        }
        return !isAtLeast3_3(version)
    }

    /// Whether a tmux version (`3.3a`, `3.4`, `next-3.6`, `10.0`) is 3.3 or later; unreadable versions count as new.
    static func isAtLeast3_3(_ version: String) -> Bool {
        let digits = version.drop { !$0.isNumber }
        let parts = digits.split(separator: ".", maxSplits: 1).map { $0.prefix { $0.isNumber } }
        guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]) else { return true }
        return (major, minor) >= (3, 3)
    }
}
