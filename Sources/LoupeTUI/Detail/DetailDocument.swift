import Foundation
import Loupe
import LoupeTrace

/// One exchange as a document of styled lines: request, response, attempts with timings, notes and events.
///
/// The one rendering of an exchange: the inspector's detail view draws these lines with their styles, and
/// `loupe show` prints ``plainText``, the same lines without styles, so the two cannot drift. Every recorded
/// value in it (URL, headers, bodies, errors, notes, events) comes from a server or a file, so each span has its
/// control characters made visible by `TerminalText`, the rule the cell buffer applies when it draws.
package struct DetailDocument {
    package let exchange: TraceExchange
    /// Gives the start's date and time their time zone.
    package let calendar: Calendar

    package init(exchange: TraceExchange, calendar: Calendar) {
        self.exchange = exchange
        self.calendar = calendar
    }

    /// The lines, unwrapped.
    package var lines: [StyledLine] {
        rawLines.map { line in
            StyledLine(line.spans.map { StyledLine.Span(TerminalText.line($0.text), $0.style) })
        }
    }

    /// The lines without styles, one per text line: what `loupe show` prints.
    package var plainText: String {
        lines.map(\.text).joined(separator: "\n")
    }

    /// The lines with recorded text as it was recorded.
    private var rawLines: [StyledLine] {
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
        let duration = exchange.duration.map(QuantityFormat.millis) ?? (exchange.endedAt == nil ? "in flight" : "—")
        var lines = [StyledLine([.init(exchange.method + " ", .heading), .init(exchange.url, .heading)])]
        if !exchange.operation.isEmpty { lines.append(StyledLine([.init("operation ", .dim), .init(exchange.operation)])) }
        lines.append(StyledLine([
            .init("started ", .dim), .init(ClockFormat.dateAndTime(exchange.startedAt, calendar: calendar)),
            .init("  duration ", .dim), .init(duration),
            .init("  outcome ", .dim), .init(exchange.outcome.rawValue, exchange.outcome == .success ? .normal : .error),
        ]))
        if let original = exchange.replayOf {
            lines.append(StyledLine([.init("↻ replay of ", .replay), .init(original.uuidString.lowercased(), .dim)]))
        }
        let sequence = exchange.sequence.map { "  #\($0)" } ?? ""
        lines.append(StyledLine([.init("id ", .dim), .init(exchange.id.uuidString.lowercased() + sequence, .dim)]))
        if let trace = exchange.traceContext {
            lines.append(StyledLine([.init("trace ", .dim), .init("\(trace.traceID) span \(trace.spanID)", .dim)]))
        }
        return lines
    }

    private var responseHeading: StyledLine {
        if let status = exchange.status {
            // A response may still end in an error (a body cut short, a validator's verdict): say both.
            let error: [StyledLine.Span] = exchange.error.map { [.init("  error: ", .dim), .init($0, .error)] } ?? []
            return StyledLine([.init("Response  ", .heading), .init(HTTPReasonPhrase.statusLine(status), StatusStyle.style(for: status))]
                + error)
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
        return "+" + QuantityFormat.millis(date.timeIntervalSince(exchange.startedAt))
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
            if let delay = attempt.retryDelay { facts.append(("after ", QuantityFormat.millis(delay))) }
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
                .init("  " + offset(event.at) + "  ", .dim), .init(event.kind.rawValue + "  ", .label), .init(event.message),
                .init(attributes.isEmpty ? "" : "  " + attributes, .dim),
            ])
        }
    }
}
