import ArgumentParser
import Foundation
import LoupeTrace

/// `loupe show [STORE] ID [--json]`: one exchange with its headers, bodies, attempts and events.
///
/// Two optional positionals resolved by count: `show ID` reads the default store, `show STORE ID` the given one.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one exchange: request, response, attempts and events.",
        discussion: "ID is a whole id, a unique prefix of one (the first column of `loupe list`), or a sequence number (42 or #42).")

    @Argument(help: ArgumentHelp("The trace store, when two arguments are given (default: $LOUPE_STORE or the XDG state store).", valueName: "STORE"))
    var first: String?

    @Argument(help: ArgumentHelp("The exchange.", valueName: "ID"))
    var second: String?

    @Flag(help: "Print JSON (the whole exchange; bodies as text, or base64 when not UTF-8).")
    var json = false

    func validate() throws {
        guard first != nil else { throw ValidationError("missing ID (an id, an id prefix or a sequence number)") }
    }

    func run() async throws {
        let (storeArgument, reference) = second.map { (first, $0) } ?? (nil, first ?? "")
        let (store, path) = try StoreAccess.openForReading(storeArgument)
        let exchange = try StoreAccess.exchange(reference, in: store, path: path)
        if json {
            print(try Formatting.json(ExchangeJSON(exchange)))
        } else {
            print(ExchangeText.render(exchange))
        }
    }
}

/// The text `loupe show` prints; times inside the exchange are offsets from its start.
enum ExchangeText {
    /// Bodies longer than this are cut in text output (`--json` has them whole).
    static let bodyPreview = 2_048

    /// Every recorded value (method, URL, headers, bodies, errors, notes, events) is recorded data from a server
    /// or a file: single-line values go through `TerminalText.line`, bodies through `TerminalText.block`.
    static func render(_ exchange: TraceExchange) -> String {
        let start = exchange.startedAt
        func offset(_ date: Date?) -> String {
            guard let date, case let text = Formatting.milliseconds(date.timeIntervalSince(start)), text != "—" else { return "—" }
            return "+" + text
        }
        func line(_ text: String) -> String { TerminalText.line(text) }
        func pairs(_ values: [String: String]) -> String {
            values.sorted { $0.key < $1.key }.map { line("\($0.key)=\($0.value)") }.joined(separator: " ")
        }
        var lines = [
            "\(line(exchange.method)) \(line(exchange.url))",
            "  id         \(exchange.id.uuidString)  (#\(exchange.sequence ?? 0))",
            "  operation  \(line(exchange.operation))",
            "  started    \(Formatting.time(start))   duration \(Formatting.milliseconds(exchange.duration))",
            "  outcome    \(exchange.outcome.rawValue)" + (exchange.status.map { "   status \($0)" } ?? "")
                + (exchange.error.map { "   error: \(line($0))" } ?? ""),
        ]
        if let replayOf = exchange.replayOf { lines.append("  replay of  \(replayOf.uuidString)") }
        if let trace = exchange.traceContext { lines.append("  trace      \(line(trace.traceID))  span \(line(trace.spanID))") }
        lines += section("Request headers", exchange.requestHeaders.map { line("\($0.name): \($0.value)") })
        lines += body("Request body", exchange.requestBody)
        lines += section("Response headers", exchange.responseHeaders.map { line("\($0.name): \($0.value)") })
        lines += body("Response body", exchange.responseBody)

        let attemptRows = exchange.attempts.map { attempt in
            [String(attempt.number), offset(attempt.startedAt), offset(attempt.requestSentAt), offset(attempt.firstByteAt),
             offset(attempt.endedAt), attempt.status.map(String.init) ?? "—", attempt.circuitState.map(line) ?? "—",
             attempt.retryDelay.map { "after \(Formatting.milliseconds($0))" + (attempt.retryReason.map { " (\(line($0)))" } ?? "") } ?? "",
             pairs(attempt.notes), attempt.error.map(line) ?? ""]
        }
        lines += section("Attempts", table(
            header: ["#", "START", "SENT", "FIRST BYTE", "END", "STATUS", "BREAKER", "RETRY", "NOTES", "ERROR"], rows: attemptRows))
        let eventRows = exchange.events.map { event in
            [offset(event.at), line(event.kind), line(event.message), pairs(event.attributes)]
        }
        lines += section("Events", table(header: nil, rows: eventRows))
        return lines.joined(separator: "\n")
    }

    private static func section(_ title: String, _ lines: [String]) -> [String] {
        ["", title] + (lines.isEmpty ? ["  (none)"] : lines.map { "  " + $0 })
    }

    private static func body(_ title: String, _ body: TraceBody?) -> [String] {
        guard let body else { return [] }
        let stored = body.isTruncated ? ", first \(body.data.count) stored" : ""
        let heading = "\(title) (\(body.size) bytes\(stored))"
        guard let text = String(data: body.data, encoding: .utf8) else {
            return section(heading, ["<\(body.data.count) bytes of binary data; --json shows them as base64>"])
        }
        let cut = text.count > bodyPreview ? String(text.prefix(bodyPreview)) + " … (--json shows all)" : text
        // Lines and tabs keep the body's layout; every other control character is shown, not sent.
        return section(heading, cut.isEmpty ? ["(empty)"] : TerminalText.block(cut)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    /// Left-aligned columns, padded to their widest cell.
    static func table(header: [String]?, rows: [[String]]) -> [String] {
        guard !rows.isEmpty else { return [] }
        let all = (header.map { [$0] } ?? []) + rows
        let widths = (0..<all[0].count).map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
    }
}

/// The JSON shape of `loupe show --json` (stable names; times ISO 8601, durations in ms).
struct ExchangeJSON: Encodable {
    struct Header: Encodable { var name, value: String }
    struct Body: Encodable {
        var size: Int
        var truncated: Bool
        var text: String?
        var base64: String?
    }
    struct Attempt: Encodable {
        var number: Int
        var startedAt: String
        var requestSentAt, firstByteAt, endedAt: String?
        var durationMs: Double?
        var status: Int?
        var error, circuitState, retryReason: String?
        var retryDelayMs: Double?
        var notes: [String: String]?
    }
    struct Event: Encodable {
        var kind, at, message: String
        var attributes: [String: String]
    }

    var summary: SummaryJSON
    var traceContext: TraceContext?
    var requestHeaders, responseHeaders: [Header]
    var requestBody, responseBody: Body?
    var attempts: [Attempt]
    var events: [Event]

    init(_ exchange: TraceExchange) {
        func iso(_ date: Date?) -> String? { Formatting.jsonDate(date) }
        traceContext = exchange.traceContext
        func ms(_ seconds: Double?) -> Double? { Formatting.jsonMilliseconds(seconds) }
        func body(_ body: TraceBody?) -> Body? {
            body.map { body in
                let text = String(data: body.data, encoding: .utf8)
                return Body(size: body.size, truncated: body.isTruncated, text: text,
                            base64: text == nil ? body.data.base64EncodedString() : nil)
            }
        }
        summary = SummaryJSON(exchange.summary)
        requestHeaders = exchange.requestHeaders.map { Header(name: $0.name, value: $0.value) }
        responseHeaders = exchange.responseHeaders.map { Header(name: $0.name, value: $0.value) }
        requestBody = body(exchange.requestBody)
        responseBody = body(exchange.responseBody)
        attempts = exchange.attempts.map { attempt in
            Attempt(number: attempt.number, startedAt: iso(attempt.startedAt) ?? "", requestSentAt: iso(attempt.requestSentAt),
                    firstByteAt: iso(attempt.firstByteAt), endedAt: iso(attempt.endedAt), durationMs: ms(attempt.duration),
                    status: attempt.status, error: attempt.error, circuitState: attempt.circuitState,
                    retryReason: attempt.retryReason, retryDelayMs: ms(attempt.retryDelay),
                    notes: attempt.notes.isEmpty ? nil : attempt.notes)
        }
        events = exchange.events.map {
            Event(kind: $0.kind, at: iso($0.at) ?? "", message: $0.message, attributes: $0.attributes)
        }
    }

    /// Flattens the summary's fields into the top level, next to the details.
    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(traceContext, forKey: .traceContext)
        try container.encode(requestHeaders, forKey: .requestHeaders)
        try container.encode(responseHeaders, forKey: .responseHeaders)
        try container.encodeIfPresent(requestBody, forKey: .requestBody)
        try container.encodeIfPresent(responseBody, forKey: .responseBody)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(events, forKey: .events)
    }

    private enum Key: String, CodingKey {
        case traceContext, requestHeaders, responseHeaders, requestBody, responseBody, attempts, events
    }
}
