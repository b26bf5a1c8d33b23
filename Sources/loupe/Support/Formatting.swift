import Foundation
import LoupeTrace

/// Text shapes shared by the commands.
enum Formatting {
    static func milliseconds(_ seconds: TimeInterval?) -> String {
        guard let seconds else { return "—" }
        return seconds < 1 ? String(format: "%.0f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }

    static let timeFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter
    }()

    static let iso8601 = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func status(_ summary: TraceSummary) -> String {
        if let status = summary.status { return String(status) }
        switch summary.outcome {
        case .cancelled: return "CXL"
        case .shortCircuited: return "OPEN"
        default: return "ERR"
        }
    }
}

/// The JSON shape of one exchange in `loupe list --json` (stable names; times in ISO 8601, durations in ms).
struct SummaryJSON: Encodable {
    var id: String
    var sequence: Int64
    var startedAt: String
    var operation: String
    var method: String
    var url: String
    var status: Int?
    var outcome: String
    var error: String?
    var durationMs: Double?
    var attempts: Int
    var replayOf: String?

    init(_ summary: TraceSummary) {
        id = summary.id.uuidString
        sequence = summary.sequence
        startedAt = summary.startedAt.formatted(Formatting.iso8601)
        operation = summary.operation
        method = summary.method
        url = summary.url
        status = summary.status
        outcome = summary.outcome.rawValue
        error = summary.error
        durationMs = summary.duration.map { ($0 * 1000 * 1000).rounded() / 1000 }
        attempts = summary.attemptCount
        replayOf = summary.replayOf?.uuidString
    }
}
