import Foundation
import Loupe
import LoupeTrace

/// The Request and Response tabs: what was sent and what came back, heads first, then the body.
extension DetailTabs {
    func requestLines(_ view: BodyView) -> [StyledLine] {
        var lines = overview
        lines += [.empty, StyledLine([.init("Request  ", .heading), .init(exchange.method + " " + exchange.url)])]
        if exchange.beforeRule != nil {
            lines.append(StyledLine("  as sent: a rule or an edit changed what the app asked for (below)", style: .dim))
        }
        let query = URLComponents(string: exchange.url)?.queryItems ?? []
        if !query.isEmpty {
            lines += [.empty, Self.heading("Query (\(query.count))")]
            lines += query.map { StyledLine([.init("  " + $0.name + ": ", .label), .init($0.value ?? "")]) }
        }
        lines += headerSection("Request headers", exchange.requestHeaders)
        lines = Self.safe(lines)
        appendBodySection("Request body", exchange.requestBody, headers: exchange.requestHeaders, view, to: &lines)
        if let asked = exchange.beforeRule {
            // Both sides, the sent one first: what the server got is the record; what the app asked for is beside it.
            var before: [StyledLine] = [
                .empty, StyledLine([.init("Before the rule  ", .heading), .init(asked.method + " " + asked.url)]),
            ]
            before += headerSection("Headers before the rule", asked.headers)
            lines += Self.safe(before)
            if let body = asked.body {
                appendBodySection("Body before the rule", body, headers: asked.headers, view, to: &lines)
            }
        }
        return lines
    }

    func responseLines(_ view: BodyView) -> [StyledLine] {
        var lines = [responseStatus]
        // A response a rule made is never mistaken for the server's: said first, in the error colour.
        if let mocked = exchange.events.last(where: { $0.kind == .rule && $0.attributes["mocked"] == "true" }) {
            lines.append(StyledLine([.init("mocked by rule '\(mocked.attributes["rule"] ?? "?")': not from the server", .error)]))
        }
        if let unread = exchange.events.last(where: { $0.kind == .bodyNotRead }) {
            lines.append(StyledLine([.init("body not read by the app: only the \(unread.attributes["readBytes"] ?? "?") bytes it read are recorded", .error)]))
        }
        let hasResponse = exchange.status != nil || !exchange.responseHeaders.isEmpty || exchange.responseBody != nil
        guard hasResponse else { return Self.safe(lines) }
        lines += headerSection("Response headers", exchange.responseHeaders)
        lines = Self.safe(lines)
        appendBodySection("Response body", exchange.responseBody, headers: exchange.responseHeaders, view, to: &lines)
        return lines
    }

    /// What identifies the exchange: operation, start, outcome, id, trace.
    private var overview: [StyledLine] {
        var lines: [StyledLine] = []
        if !exchange.operation.isEmpty { lines.append(StyledLine([.init("operation ", .dim), .init(exchange.operation)])) }
        lines.append(StyledLine([
            .init("started ", .dim), .init(Quantity.dateAndTime(exchange.startedAt, calendar: calendar)),
            .init("  outcome ", .dim), .init(exchange.outcome.word, exchange.outcome == .success ? .normal : .error),
        ]))
        let sequence = exchange.sequence.map { "  " + ExchangeLabel.number($0) } ?? ""
        lines.append(StyledLine([.init("id ", .dim), .init(ExchangeLabel.id(exchange.id) + sequence, .dim)]))
        if let trace = exchange.traceContext {
            lines.append(StyledLine([.init("trace ", .dim), .init("\(trace.traceID) span \(trace.spanID)", .dim)]))
        }
        return lines
    }

    /// The status line with its reason phrase; a response may still end in an error (a body cut short, a
    /// validator's verdict), so both are said.
    private var responseStatus: StyledLine {
        let title = StyledLine.Span("Response  ", .heading)
        if let status = exchange.status {
            let error: [StyledLine.Span] = exchange.error.map { [.init("  error: ", .dim), .init($0, .error)] } ?? []
            return StyledLine([title, .init(HTTPReasonPhrase.statusLine(status), StatusStyle.style(for: status))] + error)
        }
        if let error = exchange.error { return StyledLine([title, .init("no response: " + error, .error)]) }
        return StyledLine([title, .init(exchange.endedAt == nil ? "waiting…" : "none", .dim)])
    }

    private func headerSection(_ title: String, _ fields: [TraceHeader]) -> [StyledLine] {
        let lines = fields.map { StyledLine([.init("  " + $0.name + ": ", .label), .init($0.value)]) }
        let heading = Self.heading(title + " (\(fields.count))")
        return [.empty, heading] + (lines.isEmpty ? [StyledLine("  (none)", style: .dim)] : lines)
    }

    /// The body's lines come out of ``BodyFormatter`` already safe for a terminal, appended to the tab's own
    /// `lines` (a large body's lines are not built apart and copied once more).
    private func appendBodySection(
        _ title: String, _ body: TraceBody?, headers: [TraceHeader], _ view: BodyView, to lines: inout [StyledLine]
    ) {
        lines += [.empty, Self.heading(title, note: BodyFormatter.sizeNote(body))]
        BodyFormatter.append(body, headers: headers, view: view, to: &lines)
    }
}
