import Foundation
import LoupeTrace
import Testing

/// A recording's age against a cassette's `maxAge`.
enum CassetteAge {
    /// The message for a recording older than `maxAge` (counted from its oldest interaction), or nil.
    static func expired(_ interactions: [TraceExchange], maxAge: Duration, now: Date, path: String) -> String? {
        guard let oldest = interactions.map(\.startedAt).min() else { return nil }
        let age = now.timeIntervalSince(oldest)
        let limit = Double(maxAge.components.seconds) + Double(maxAge.components.attoseconds) / 1e18
        guard age > limit else { return nil }
        return "cassette \(path) was recorded \(days(age)) ago, more than its maxAge of \(days(limit))"
    }

    /// Reports a warning: a Swift Testing issue of severity `.warning` inside a test, else a line on stderr.
    static func warn(_ message: String) {
        if Test.current != nil {
            Issue.record(Comment(rawValue: message), severity: .warning)
        } else {
            try? FileHandle.standardError.write(contentsOf: Data("warning: \(message)\n".utf8))
        }
    }

    /// `3 days`, `1.5 days`, or hours and minutes below a day.
    private static func days(_ seconds: Double) -> String {
        if seconds >= 86_400 {
            let tenths = Int((seconds / 86_400 * 10).rounded())
            let text = "\(tenths / 10)" + (tenths % 10 == 0 ? "" : ".\(tenths % 10)")
            return text == "1" ? "1 day" : text + " days"
        }
        if seconds >= 3_600 { return "\(Int(seconds / 3_600)) h" }
        return "\(max(0, Int(seconds / 60))) min"
    }
}
