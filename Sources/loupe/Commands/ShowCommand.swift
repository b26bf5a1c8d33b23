import ArgumentParser
import Foundation
import Loupe
import LoupeProtobuf
import LoupeQuery
import LoupeTrace
import LoupeTUI

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

    @OptionGroup var descriptorSet: DescriptorSetOption

    func validate() throws {
        guard first != nil else { throw ValidationError("missing ID (an id, an id prefix or a sequence number)") }
    }

    func run() async throws {
        let (storeArgument, reference) = second.map { (first, $0) } ?? (nil, first ?? "")
        let messageTypes = try descriptorSet.load()
        let (store, path) = try StoreAccess.openForReading(storeArgument)
        let exchange = try StoreAccess.exchange(reference, in: store, path: path)
        if json {
            print(try Formatting.json(ExchangeJSON(exchange, messageTypes: messageTypes)))
        } else {
            print(ExchangeText.render(exchange, numbers: store.numbers(referencedBy: exchange), messageTypes: messageTypes))
        }
    }
}

/// The text `loupe show` prints: the TUI's detail document for the exchange, without styles.
///
/// The document (`DetailDocument` in LoupeTUI) is the one rendering of an exchange, so `show` and the detail view
/// cannot drift; it makes every recorded value safe for a terminal (`TerminalText`) itself.
enum ExchangeText {
    /// Times in the calendar's time zone (the current one by default, as the other commands print them); the
    /// exchanges it names read `#N` where `numbers` has them.
    static func render(_ exchange: TraceExchange, calendar: Calendar = .current, numbers: [UUID: Int64] = [:],
                       messageTypes: ProtobufDescriptorSet? = nil) -> String {
        DetailDocument(exchange: exchange, calendar: calendar, numbers: numbers, messageTypes: messageTypes).plainText
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
    /// The linked app that sent it (`loupe listen`), absent for exchanges recorded in-process.
    var source: TraceSource?
    var requestHeaders, responseHeaders: [Header]
    var requestBody, responseBody: Body?
    var attempts: [Attempt]
    var events: [Event]
    /// The stream with its messages, absent for a request and response.
    var stream: StreamJSON?
    /// What the app asked for when a rule or an edit changed the request before it was sent (the top level's
    /// `method`, `url`, `requestHeaders` and `requestBody` are what was sent); absent when nothing changed it.
    struct Request: Encodable {
        var method, url: String
        var headers: [Header]
        var body: Body?
    }
    var beforeRule: Request?

    /// `messageTypes` names a gRPC call's messages' fields (`json` beside `protobuf`).
    init(_ exchange: TraceExchange, messageTypes: ProtobufDescriptorSet? = nil) {
        stream = exchange.stream.map {
            StreamJSON($0, startedAt: exchange.startedAt, withMessages: true,
                       decoding: messageTypes.map { ($0, exchange.operation) })
        }
        func iso(_ date: Date?) -> String? { Formatting.jsonDate(date) }
        traceContext = exchange.traceContext
        source = exchange.source
        func ms(_ seconds: Double?) -> Double? { Formatting.jsonMilliseconds(seconds) }
        func body(_ body: TraceBody?) -> Body? {
            body.map { body in
                let text = String(data: body.data, encoding: .utf8)
                return Body(size: body.size, truncated: body.isTruncated, text: text,
                            base64: text == nil ? body.data.base64EncodedString() : nil)
            }
        }
        var listed = exchange.summary
        listed.stream = nil  // `stream` below has it whole, with the messages
        summary = SummaryJSON(listed)
        requestHeaders = exchange.requestHeaders.map { Header(name: $0.name, value: $0.value) }
        responseHeaders = exchange.responseHeaders.map { Header(name: $0.name, value: $0.value) }
        requestBody = body(exchange.requestBody)
        beforeRule = exchange.beforeRule.map { asked in
            Request(method: asked.method, url: asked.url, headers: asked.headers.map { Header(name: $0.name, value: $0.value) },
                    body: body(asked.body))
        }
        responseBody = body(exchange.responseBody)
        attempts = exchange.attempts.map { attempt in
            Attempt(number: attempt.number, startedAt: iso(attempt.startedAt) ?? "", requestSentAt: iso(attempt.requestSentAt),
                    firstByteAt: iso(attempt.firstByteAt), endedAt: iso(attempt.endedAt), durationMs: ms(attempt.duration),
                    status: attempt.status, error: attempt.error, circuitState: attempt.circuitState,
                    retryReason: attempt.retryReason, retryDelayMs: ms(attempt.retryDelay),
                    notes: attempt.notes.isEmpty ? nil : attempt.notes)
        }
        events = exchange.events.map {
            Event(kind: $0.kind.rawValue, at: iso($0.at) ?? "", message: $0.message, attributes: $0.attributes)
        }
    }

    /// Flattens the summary's fields into the top level, next to the details.
    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(traceContext, forKey: .traceContext)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encode(requestHeaders, forKey: .requestHeaders)
        try container.encode(responseHeaders, forKey: .responseHeaders)
        try container.encodeIfPresent(requestBody, forKey: .requestBody)
        try container.encodeIfPresent(responseBody, forKey: .responseBody)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(events, forKey: .events)
        try container.encodeIfPresent(stream, forKey: .stream)
        try container.encodeIfPresent(beforeRule, forKey: .beforeRule)
    }

    private enum Key: String, CodingKey {
        case traceContext, source, requestHeaders, responseHeaders, requestBody, responseBody, attempts, events, stream
        case beforeRule
    }
}
