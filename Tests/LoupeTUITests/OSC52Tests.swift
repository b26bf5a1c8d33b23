import Foundation
import LoupeTUI
import Testing

@Suite("OSC 52 clipboard")
struct OSC52Tests {
    /// The base64 payload inside a plain sequence, decoded.
    static func decoded(_ sequence: String) -> String? {
        guard sequence.hasPrefix("\u{1B}]52;c;"), sequence.hasSuffix("\u{07}") else { return nil }
        let payload = sequence.dropFirst(7).dropLast()
        return Data(base64Encoded: String(payload)).flatMap { String(data: $0, encoding: .utf8) }
    }

    @Test("the text travels as base64 of its UTF-8 in ESC ] 52 ; c ; … BEL")
    func plain() throws {
        let text = "curl 'https://api.example.com/ä?q=1' \\\n  -H 'Accept: */*' 👍"
        let sequence = try #require(OSC52.sequence(for: text, environment: ["TERM": "xterm-kitty"]))
        #expect(Self.decoded(sequence) == text)
        #expect(OSC52.sequence(for: "hi", environment: [:]) == "\u{1B}]52;c;aGk=\u{07}")
        #expect(OSC52.sequence(for: "", environment: [:]) == nil)
    }

    @Test("text up to 74,994 UTF-8 bytes fits the 100,000-byte sequence; one byte more gets nothing")
    func limit() throws {
        let largest = String(repeating: "a", count: 74_994)
        let sequence = try #require(OSC52.sequence(for: largest, environment: [:]))
        #expect(sequence.utf8.count == OSC52.maximumSequenceLength)
        #expect(OSC52.sequence(for: largest + "a", environment: [:]) == nil)
        // Multi-byte text counts in bytes, not characters.
        #expect(OSC52.sequence(for: String(repeating: "ä", count: 37_497), environment: [:]) != nil)
        #expect(OSC52.sequence(for: String(repeating: "ä", count: 37_498), environment: [:]) == nil)
    }

    @Test("tmux 3.3 and later get the plain sequence; older tmux gets it wrapped in passthrough with ESC doubled")
    func tmux() throws {
        let tmux = ["TMUX": "/tmp/tmux-1000/default,123,0", "TERM": "tmux-256color", "TERM_PROGRAM": "tmux"]
        for version in ["3.3a", "3.3", "3.4", "3.5a", "next-3.6", "10.0"] {
            let sequence = OSC52.sequence(for: "hi", environment: tmux.merging(["TERM_PROGRAM_VERSION": version]) { $1 })
            #expect(sequence == "\u{1B}]52;c;aGk=\u{07}", "\(version)")
        }
        let wrapped = "\u{1B}Ptmux;\u{1B}\u{1B}]52;c;aGk=\u{07}\u{1B}\\"
        for version in ["3.2a", "3.2", "2.9", "1.8"] {
            #expect(OSC52.sequence(for: "hi", environment: tmux.merging(["TERM_PROGRAM_VERSION": version]) { $1 }) == wrapped)
        }
        // Before 3.2 tmux did not set TERM_PROGRAM_VERSION at all.
        #expect(OSC52.sequence(for: "hi", environment: ["TMUX": "/tmp/t,1,0", "TERM": "screen"]) == wrapped)
        // A TERM_PROGRAM from the outer terminal is not tmux's version.
        #expect(OSC52.sequence(for: "hi", environment: ["TMUX": "/tmp/t,1,0", "TERM_PROGRAM": "iTerm.app",
                                                        "TERM_PROGRAM_VERSION": "3.5"]) == wrapped)
        #expect(OSC52.sequence(for: "hi", environment: ["TMUX": "", "TERM_PROGRAM_VERSION": "1.0"]) == "\u{1B}]52;c;aGk=\u{07}")
    }

    @Test("support: tmux, known terminals and Ms say yes; VTE, Apple Terminal, the console say no",
          arguments: [
              (["TMUX": "/tmp/t,1,0", "TERM": "tmux-256color"], false, true),
              (["TERM": "xterm-kitty"], false, true),
              (["TERM": "xterm-ghostty"], false, true),
              (["TERM": "alacritty"], false, true),
              (["TERM": "foot-extra"], false, true),
              (["TERM": "wezterm"], false, true),
              (["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"], false, true),
              (["TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"], false, true),
              (["TERM": "xterm-256color", "WT_SESSION": "d2c1"], false, true),
              (["TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"], false, true),
              (["TERM": "xterm-256color", "VTE_VERSION": "7600"], true, false),
              (["TERM": "xterm-256color", "TERM_PROGRAM": "Apple_Terminal"], true, false),
              (["TERM": "xterm-kitty", "VTE_VERSION": "7600"], false, true),
              (["TERM": "linux"], true, false),
              (["TERM": "dumb"], true, false),
              ([:], true, false),
              (["TERM": "xterm-256color"], true, true),
              (["TERM": "xterm-256color"], false, false),
              (["TERM": "screen-256color", "STY": "1.pts-0"], false, false),
          ] as [([String: String], Bool, Bool)])
    func support(environment: [String: String], terminfoHasMs: Bool, expected: Bool) {
        #expect(OSC52.isLikelySupported(environment: environment, terminfoHasMs: terminfoHasMs) == expected)
    }
}
