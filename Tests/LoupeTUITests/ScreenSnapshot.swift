import Foundation
import LoupeTUI
import Testing

/// Whole-screen comparisons (ratatui's `Buffer::with_lines`), kept as text files beside the tests: each row of
/// the screen between `|` bars, so trailing spaces show. `LOUPE_RECORD_SCREENS=1 swift test` writes them afresh
/// (and fails, so a recording is never mistaken for a pass); review the diff before committing.
enum ScreenSnapshot {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Screens")

    static func text(_ lines: [String]) -> String {
        lines.map { "|" + $0 + "|" }.joined(separator: "\n") + "\n"
    }

    static func check(_ screen: InMemoryTerminal, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        check(screen.lines, name, sourceLocation: sourceLocation)
    }

    static func check(_ lines: [String], _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let file = folder.appendingPathComponent(name + ".txt")
        let actual = text(lines)
        if ProcessInfo.processInfo.environment["LOUPE_RECORD_SCREENS"] == "1" {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try? actual.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("recorded \(name).txt: review it, then run again without LOUPE_RECORD_SCREENS",
                         sourceLocation: sourceLocation)
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record("no snapshot \(name).txt: run with LOUPE_RECORD_SCREENS=1", sourceLocation: sourceLocation)
            return
        }
        if expected != actual {
            let pairs = zip(expected.split(separator: "\n", omittingEmptySubsequences: false),
                            actual.split(separator: "\n", omittingEmptySubsequences: false))
            let diff = pairs.enumerated().filter { $0.element.0 != $0.element.1 }
                .map { "row \($0.offset):\n  want \($0.element.0)\n  got  \($0.element.1)" }.joined(separator: "\n")
            Issue.record("screen \(name) differs:\n\(diff)\n--- whole screen ---\n\(actual)", sourceLocation: sourceLocation)
        }
    }
}
