/// One way a replay's response differs from the original's.
///
/// ``description`` is the line the CLI prints (`$.items[3].price: 10 → 12`); ``detailLines`` follow it for a text
/// body (its hunks). Values are recorded data: printers pass them through `TerminalText`.
package struct Difference: Sendable, Equatable, CustomStringConvertible {
    /// What changed at the location.
    package enum Change: Sendable, Equatable {
        /// A value replaced: status codes, header values, JSON values (as compact JSON).
        case changed(from: String, to: String)
        /// Present only in the replay.
        case added(String)
        /// Present only in the original.
        case removed(String)
        /// A text body, line by line.
        case lines(LineDiff)
        /// A binary body, by size.
        case bytes(from: Int, to: Int)
    }

    package var location: DiffLocation
    package var change: Change

    package init(_ location: DiffLocation, _ change: Change) {
        self.location = location
        self.change = change
    }

    package var description: String {
        switch change {
        case .changed(let from, let to): "\(location): \(from) → \(to)"
        case .added(let value): "\(location): added \(value)"
        case .removed(let value): "\(location): removed \(value)"
        case .lines(let lines) where lines.removedCount == 0 && lines.insertedCount == 0:
            "\(location): same lines, different line endings or final newline"
        case .lines(let lines):
            "\(location): \(Self.count(lines.removedCount, "line")) removed, \(lines.insertedCount) added"
        case .bytes(let from, let to) where from == to: "\(location): \(Self.count(from, "byte")), contents differ (binary)"
        case .bytes(let from, let to): "\(location): \(Self.count(from, "byte")) → \(Self.count(to, "byte")) (binary)"
        }
    }

    /// The lines under ``description``: a text body's unified hunks (`@@ -3,2 +3,2 @@`, then ` `, `-`, `+` lines).
    package var detailLines: [String] {
        guard case .lines(let lines) = change else { return [] }
        return lines.hunks().flatMap(\.lines)
    }

    private static func count(_ value: Int, _ noun: String) -> String {
        "\(value) \(noun)\(value == 1 ? "" : "s")"
    }
}
