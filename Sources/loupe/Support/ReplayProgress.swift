import Foundation
import LoupeTrace
import LoupeReplay

/// The line `loupe replay` redraws on stderr while it runs, when stderr is a terminal:
/// `[██████░░░░░░░░░░░░░░░░░░] 12/48  200 ×11  503 ×1  1 error`.
struct ReplayProgress {
    static let barWidth = 24
    /// Redraws at most this often; the last one is always drawn.
    static let interval: Duration = .milliseconds(100)

    let total: Int
    private(set) var tally = ReplayTally()
    private var lastDraw: ContinuousClock.Instant?

    init(total: Int) { self.total = total }

    mutating func add(_ outcome: ReplayOutcome) { tally.add(outcome) }

    /// The progress line, without the carriage return.
    func line() -> String {
        let filled = total == 0 ? Self.barWidth : min(Self.barWidth, tally.count * Self.barWidth / total)
        var parts = ["[" + String(repeating: "█", count: filled) + String(repeating: "░", count: Self.barWidth - filled) + "]",
                     "\(tally.count)/\(total)"]
        parts += tally.statuses.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }
        if tally.errorCount > 0 { parts.append("\(tally.errorCount) error\(tally.errorCount == 1 ? "" : "s")") }
        return parts.joined(separator: "  ")
    }

    /// Draws the line on stderr if it is due (the first, every ``interval``, and the last).
    mutating func draw(now: ContinuousClock.Instant = .now) {
        if let lastDraw, tally.count < total, lastDraw.duration(to: now) < Self.interval { return }
        lastDraw = now
        StandardStreams.error("\r\u{1B}[2K" + line())
    }

    /// Erases the line, so the summary starts on a clean one.
    func clear() {
        StandardStreams.error("\r\u{1B}[2K")
    }
}
