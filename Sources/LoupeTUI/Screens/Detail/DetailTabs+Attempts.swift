import Foundation
import Loupe
import LoupeTrace

/// The Attempts tab: every try on the wire with its own result, milestones, phases, breaker state, retry
/// decision, notes and error.
extension DetailTabs {
    var attemptLines: [StyledLine] {
        guard !exchange.attempts.isEmpty else { return [StyledLine(noAttemptsText, style: .dim)] }
        var lines: [StyledLine] = []
        for attempt in exchange.attempts {
            if !lines.isEmpty { lines.append(.empty) }
            lines += block(attempt)
        }
        if exchange.attempts.count > 1 {
            let see = medium == .tabs ? "see the Request and Response tabs" : "they are under Request and Response above"
            lines += [.empty, StyledLine("Headers are kept for the final attempt only: \(see).", style: .dim)]
        }
        return lines
    }

    /// Why an exchange has no attempt of its own: it joined an identical request in flight (de-duplication),
    /// the breaker short-circuited it, or it failed before the transport.
    private var noAttemptsText: String {
        if let leader = exchange.events.last(where: { $0.kind == .dedupJoin })?.attributes["leader"].flatMap(UUID.init) {
            return "No attempts of its own: it joined \(reference(leader)), which carried the request."
        }
        if exchange.outcome == .shortCircuited {
            return "No attempts: the breaker short-circuited the call, so nothing was sent."
        }
        return "No attempts recorded: the request never reached the transport."
    }

    private func block(_ attempt: TraceAttempt) -> [StyledLine] {
        let duration = attempt.duration.map(Quantity.duration) ?? (attempt.endedAt == nil ? "unfinished" : "—")
        var lines = [StyledLine([.init("#\(attempt.number)", .label), .init("  "), result(attempt), .init("  " + duration)])]
        lines.append(fact("timeline", [
            ("start ", offset(attempt.startedAt)), ("sent ", offset(attempt.requestSentAt)),
            ("first byte ", offset(attempt.firstByteAt)), ("end ", offset(attempt.endedAt)),
        ]))
        lines.append(fact("phases", [
            ("send ", phase(attempt.startedAt, attempt.requestSentAt)),
            ("wait ", phase(attempt.requestSentAt, attempt.firstByteAt)),
            ("receive ", phase(attempt.firstByteAt, attempt.endedAt)),
        ]))
        if let circuit = attempt.circuitState { lines.append(fact("circuit", [("", circuit)])) }
        if attempt.retryReason != nil || attempt.retryDelay != nil {
            var retry: [(String, String)] = attempt.retryReason.map { [("", $0)] } ?? []
            if let delay = attempt.retryDelay { retry.append(("after ", Quantity.duration(delay))) }
            lines.append(fact("retry", retry))
        }
        if !attempt.notes.isEmpty {
            lines.append(fact("notes", attempt.notes.sorted { $0.key < $1.key }.map { ($0.key + " ", $0.value) }))
        }
        if let error = attempt.error {
            lines.append(StyledLine([.init(Self.factIndent + Self.pad("error"), .dim), .init(error, .error)]))
        }
        return lines
    }

    private func result(_ attempt: TraceAttempt) -> StyledLine.Span {
        if let status = attempt.status { return .init(HTTPReasonPhrase.statusLine(status), StatusStyle.style(for: status)) }
        if attempt.error != nil { return .init("ERR", .error) }
        return .init("—", .dim)
    }

    /// The time from `start` to `end`, when both are known.
    private func phase(_ start: Date?, _ end: Date?) -> String {
        guard let start, let end else { return "—" }
        return Quantity.duration(end.timeIntervalSince(start))
    }

    private static let factIndent = "    "

    private static func pad(_ label: String) -> String {
        label + String(repeating: " ", count: max(1, 10 - label.count))
    }

    /// `    label     name value  name value`, names dim.
    private func fact(_ label: String, _ pairs: [(name: String, value: String)]) -> StyledLine {
        var spans = [StyledLine.Span(Self.factIndent + Self.pad(label), .dim)]
        for (index, pair) in pairs.enumerated() {
            spans.append(.init((index == 0 ? "" : "  ") + pair.name, .dim))
            spans.append(.init(pair.value))
        }
        return StyledLine(spans)
    }
}
