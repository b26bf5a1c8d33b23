import Foundation
@testable import LoupeTUI
import Testing

/// `Documentation/Keys.md` is the key table written out: it fails here the moment a binding, a description or a
/// command changes without the document (`LOUPE_RECORD_KEYS=1` rewrites it; review the diff).
@Suite struct KeyReferenceTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Documentation/Keys.md")

    @Test func keysDocumentMatchesTheKeyTable() throws {
        let generated = KeyReference.markdown(.standard)
        if ProcessInfo.processInfo.environment["LOUPE_RECORD_KEYS"] == "1" {
            try generated.write(to: Self.file, atomically: true, encoding: .utf8)
            Issue.record("recorded Documentation/Keys.md: review it, then run again without LOUPE_RECORD_KEYS")
            return
        }
        let stored = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(stored == generated, "Documentation/Keys.md differs from the key table: run with LOUPE_RECORD_KEYS=1")
    }

    @Test func everyScreenIsInTheReferenceAndEveryCommandHasAKeyOrAPromptEntry() {
        let text = KeyReference.markdown(.standard)
        for context in KeyContext.allCases { #expect(!Keymap.standard.bindings(in: context).isEmpty, "\(context)") }
        // Every screen has its section (screen 5 had none).
        for context in KeyContext.allCases { #expect(KeyReference.screens.contains { $0.0 == context }, "\(context)") }
        for key in ["`R`", "`e`", "`d`", "`/`", "`?`"] { #expect(text.contains("| \(key) |"), "\(key)") }
    }

    /// Issue 25 #9: the help said circuits' Enter opens an exchange, g goes to "the oldest, in time order", and
    /// metrics' o cycles the exchanges' sort keys.
    @Test func helpSaysWhatEachScreensKeysDoThere() {
        func help(_ context: KeyContext) -> String {
            HelpScreen(for: context, keymap: .standard, area: Rect(x: 0, y: 0, width: 80, height: 20)).lines.map(\.text).joined(separator: "\n")
        }
        let circuits = help(.circuits)
        #expect(circuits.contains("Open the selected key's transitions"))
        #expect(!circuits.contains("Open the selected exchange"))
        #expect(!circuits.contains("in time order"))
        #expect(circuits.contains("Jump to the first key"))
        let metrics = help(.metrics)
        #expect(metrics.contains("Sort the table by the next column: name, rate, errors"))
        #expect(!metrics.contains("time, duration, status"))
        #expect(help(.exchanges).contains("repeat-replay TIMES [AT-ONCE]"))
        #expect(help(.exchanges).contains("10 sends, 2 at once"))
        #expect(help(.circuitHistory).contains("Open the exchange that caused the selected transition"))
    }
}
