import Foundation
import Loupe
import LoupeTrace

/// The detail view's content for one exchange, as lines: request, response, attempts with timings, events.
struct DetailDocument {
    let exchange: TraceExchange
    let calendar: Calendar

    var lines: [StyledLine] {
        var lines = overview
        lines += section("Request headers", headers(exchange.requestHeaders))
        lines += section("Request body", BodyFormatter.lines(exchange.requestBody, headers: exchange.requestHeaders),
                         note: BodyFormatter.sizeNote(exchange.requestBody))
        lines += [.empty, responseHeading]
        lines += section("Response headers", headers(exchange.responseHeaders), spaced: false)
        lines += section("Response body", BodyFormatter.lines(exchange.responseBody, headers: exchange.responseHeaders),
                         note: BodyFormatter.sizeNote(exchange.responseBody))
        lines += section("Attempts (\(exchange.attempts.count))", attempts)
        lines += section("Events (\(exchange.events.count))", events)
        return lines
    }

    private var overview: [StyledLine] {
        var facts: [StyledLine.Span] = [
            .init("started ", .dim), .init(ClockFormat.string(exchange.startedAt, calendar: calendar)),
            .init("  duration ", .dim), .init(exchange.duration.map(DurationFormat.millis) ?? "in flight"),
            .init("  outcome ", .dim), .init(exchange.outcome.rawValue, exchange.outcome == .success ? .normal : .error),
        ]
        if !exchange.operation.isEmpty { facts = [.init("operation ", .dim), .init(exchange.operation + "  ")] + facts }
        var lines = [
            StyledLine([.init(exchange.method + " ", .heading), .init(exchange.url, .heading)]),
            StyledLine(facts),
        ]
        if let original = exchange.replayOf {
            lines.append(StyledLine([.init("↻ replay of ", .replay), .init(original.uuidString.lowercased(), .dim)]))
        }
        lines.append(StyledLine([.init("id ", .dim), .init(exchange.id.uuidString.lowercased(), .dim)]))
        if let trace = exchange.traceContext {
            lines.append(StyledLine([.init("trace ", .dim), .init("\(trace.traceID) span \(trace.spanID)", .dim)]))
        }
        return lines
    }

    private var responseHeading: StyledLine {
        if let status = exchange.status {
            return StyledLine([.init("Response  ", .heading), .init(HTTPReasonPhrase.statusLine(status), StatusStyle.style(for: status))])
        }
        if let error = exchange.error {
            return StyledLine([.init("Response  ", .heading), .init("no response: " + error, .error)])
        }
        return StyledLine([.init("Response  ", .heading), .init(exchange.endedAt == nil ? "waiting…" : "none", .dim)])
    }

    private func section(_ title: String, _ body: [StyledLine], note: String = "", spaced: Bool = true) -> [StyledLine] {
        let heading = note.isEmpty ? StyledLine(title, style: .heading)
            : StyledLine([.init(title, .heading), .init("  " + note, .dim)])
        return (spaced ? [.empty, heading] : [heading]) + (body.isEmpty ? [StyledLine("  (none)", style: .dim)] : body)
    }

    private func headers(_ fields: [TraceHeader]) -> [StyledLine] {
        fields.map { StyledLine([.init("  " + $0.name + ": ", .label), .init($0.value)]) }
    }

    private func offset(_ date: Date?) -> String {
        guard let date else { return "—" }
        return "+" + DurationFormat.millis(date.timeIntervalSince(exchange.startedAt))
    }

    private var attempts: [StyledLine] {
        exchange.attempts.flatMap { attempt -> [StyledLine] in
            let result: StyledLine.Span = if let status = attempt.status {
                .init(HTTPReasonPhrase.statusLine(status), StatusStyle.style(for: status))
            } else if attempt.error != nil {
                .init("ERR", .error)
            } else {
                .init("—", .dim)
            }
            var lines = [StyledLine([
                .init("  #\(attempt.number)  ", .label), result,
                .init("  start ", .dim), .init(offset(attempt.startedAt)),
                .init("  sent ", .dim), .init(offset(attempt.requestSentAt)),
                .init("  first byte ", .dim), .init(offset(attempt.firstByteAt)),
                .init("  end ", .dim), .init(offset(attempt.endedAt)),
            ])]
            var facts: [(label: String, value: String)] = []
            if let reason = attempt.retryReason { facts.append(("retry: ", reason)) }
            if let delay = attempt.retryDelay { facts.append(("after ", DurationFormat.millis(delay))) }
            if let circuit = attempt.circuitState { facts.append(("circuit ", circuit)) }
            facts += attempt.notes.sorted { $0.key < $1.key }.map { ($0.key + " ", $0.value) }
            let notes = facts.enumerated().flatMap { index, fact -> [StyledLine.Span] in
                [.init((index == 0 ? "" : "  ") + fact.label, .dim), .init(fact.value)]
            }
            if !notes.isEmpty { lines.append(StyledLine([.init("      ")] + notes)) }
            if let error = attempt.error { lines.append(StyledLine([.init("      error: ", .dim), .init(error, .error)])) }
            return lines
        }
    }

    private var events: [StyledLine] {
        exchange.events.map { event in
            let attributes = event.attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return StyledLine([
                .init("  " + offset(event.at) + "  ", .dim), .init(event.kind + "  ", .label), .init(event.message),
                .init(attributes.isEmpty ? "" : "  " + attributes, .dim),
            ])
        }
    }
}
