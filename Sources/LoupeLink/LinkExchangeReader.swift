import Foundation
import Loupe
@_spi(JSON) import LoupeTrace

/// An exchange frame read by hand: the listener's cost per linked exchange (issue 28's budget b).
///
/// The mirror of ``LinkExchangeJSON``: it reads the JSON apps write (`JSONEncoder`'s form, which that writer keeps)
/// straight from the frame's bytes on the shared ``JSONTokenizer``, into a ``TraceExchange``, with no tree of
/// boxed values, no `Data` copy of the payload and no generic metadata lookups per field, which were most of what
/// `JSONDecoder` cost per frame.
///
/// It reads only what `JSONDecoder` reads to the same value: keys it knows, each once; strings valid UTF-8 with no
/// `\u` escape; integers as plain digits within range; finite numbers of RFC 8259's grammar; ids in the canonical
/// form; bodies in base64; no `null`. Anything else (an unknown or repeated key, a `\u` escape, `1.0` for an
/// integer, a hostile frame of any kind) returns nil, and ``LinkFrameCodec`` gives those bytes to `JSONDecoder` as
/// before: what it refuses is refused with the same line, and what it reads is read the same, by construction.
///
/// The records are here, one reader each over its ``Keys``; the containers and values they read are in
/// `LinkExchangeReader+Values.swift`.
enum LinkExchangeReader {
    /// The exchange in `payload` (the JSON after the frame's type byte), or nil when it is not of the form above.
    static func exchange(_ payload: UnsafeRawBufferPointer) -> TraceExchange? {
        let bytes = payload.assumingMemoryBound(to: UInt8.self)
        var reader = Reader(tokenizer: JSONTokenizer(bytes))
        do throws(NotSimple) {
            let exchange = try reader.exchange()
            guard reader.tokenizer.nextStrict().kind == .end else { return nil }
            return exchange
        } catch {
            return nil
        }
    }

    /// The text is not of the simple form: `JSONDecoder` decides. Never leaves ``LinkExchangeReader``.
    struct NotSimple: Error {}

    // The keys of each record, numbered in this order by its reader's `switch` (each variable there is named as
    // its key).
    static let exchangeKeys = Keys(
        "id", "sequence", "operation", "method", "url", "startedAt", "endedAt", "outcome", "status", "error",
        "requestHeaders", "requestBody", "responseHeaders", "responseBody", "attempts", "events", "replayOf", "source",
        "stream", "beforeRule")
    static let requestKeys = Keys("method", "url", "headers", "body")
    static let streamKeys = Keys(
        "kind", "messages", "sentCount", "receivedCount", "omittedCount", "byteCount", "closeCode", "closeReason",
        "closedBy")
    static let messageKeys = Keys("index", "direction", "at", "type", "size", "payload", "isTruncated", "eventID")
    static let attemptKeys = Keys(
        "number", "startedAt", "requestSentAt", "firstByteAt", "endedAt", "status", "error", "circuitState",
        "retryReason", "retryDelay", "notes")
    static let eventKeys = Keys("kind", "at", "message", "attributes")
    static let bodyKeys = Keys("data", "size", "isTruncated")
    static let sourceKeys = Keys("app", "host", "pid")
    static let headerKeys = Keys("name", "value")

    struct Reader {
        var tokenizer: JSONTokenizer

        var bytes: UnsafeBufferPointer<UInt8> { tokenizer.bytes }

        // MARK: The records: each key read once by its number in the record's `Keys`.

        mutating func exchange() throws(NotSimple) -> TraceExchange {
            var id: UUID?, sequence: Int64?, operation: String?, method: String?, url: String?
            var startedAt: Date?, endedAt: Date?, outcome: ExchangeOutcome?, status: Int?, error: String?
            var requestHeaders: [TraceHeader]?, requestBody: TraceBody?
            var responseHeaders: [TraceHeader]?, responseBody: TraceBody?
            var attempts: [TraceAttempt]?, events: [TraceEvent]?, replayOf: UUID?, source: TraceSource?
            var stream: TraceStream?, beforeRule: TraceRequest?
            try record(exchangeKeys) { (reader: inout Reader, key: Int) throws(NotSimple) in
                switch key {
                case 0: id = try reader.uuid()
                case 1: sequence = Int64(try reader.integer())
                case 2: operation = try reader.string()
                case 3: method = try reader.string()
                case 4: url = try reader.string()
                case 5: startedAt = try reader.date()
                case 6: endedAt = try reader.date()
                case 7: outcome = try reader.raw(ExchangeOutcome.self)
                case 8: status = try reader.integer()
                case 9: error = try reader.string()
                case 10: requestHeaders = try reader.headers()
                case 11: requestBody = try reader.body()
                case 12: responseHeaders = try reader.headers()
                case 13: responseBody = try reader.body()
                case 14: attempts = try reader.array { (reader: inout Reader) throws(NotSimple) in try reader.attempt() }
                case 15: events = try reader.array { (reader: inout Reader) throws(NotSimple) in try reader.event() }
                case 16: replayOf = try reader.uuid()
                case 17: source = try reader.source()
                case 18: stream = try reader.stream()
                default: beforeRule = try reader.request()
                }
            }
            guard let id, let operation, let method, let url, let startedAt, let outcome, let requestHeaders,
                  let responseHeaders, let attempts, let events
            else { throw NotSimple() }
            return TraceExchange(
                id: id, sequence: sequence, operation: operation, method: method, url: url, startedAt: startedAt,
                endedAt: endedAt, outcome: outcome, status: status, error: error, requestHeaders: requestHeaders,
                requestBody: requestBody, responseHeaders: responseHeaders, responseBody: responseBody,
                attempts: attempts, events: events, replayOf: replayOf, source: source, stream: stream,
                beforeRule: beforeRule)
        }

        /// What the app asked for before a rule changed it (``TraceExchange/beforeRule``).
        mutating func request() throws(NotSimple) -> TraceRequest {
            var method: String?, url: String?, headers: [TraceHeader]?, body: TraceBody?
            try record(requestKeys) { (reader: inout Reader, key: Int) throws(NotSimple) in
                switch key {
                case 0: method = try reader.string()
                case 1: url = try reader.string()
                case 2: headers = try reader.headers()
                default: body = try reader.body()
                }
            }
            guard let method, let url, let headers else { throw NotSimple() }
            return TraceRequest(method: method, url: url, headers: headers, body: body)
        }

        mutating func stream() throws(NotSimple) -> TraceStream {
            var kind: ExchangeStreamKind?, messages: [TraceMessage]?
            var sentCount: Int?, receivedCount: Int?, omittedCount: Int?, byteCount: Int?
            var closeCode: Int?, closeReason: String?, closedBy: String?
            try record(streamKeys) { (reader: inout Reader, key: Int) throws(NotSimple) in
                switch key {
                case 0: kind = try reader.raw(ExchangeStreamKind.self)
                case 1: messages = try reader.array { (reader: inout Reader) throws(NotSimple) in try reader.message() }
                case 2: sentCount = try reader.integer()
                case 3: receivedCount = try reader.integer()
                case 4: omittedCount = try reader.integer()
                case 5: byteCount = try reader.integer()
                case 6: closeCode = try reader.integer()
                case 7: closeReason = try reader.string()
                default: closedBy = try reader.string()
                }
            }
            guard let byteCount, let kind, let messages, let omittedCount, let receivedCount, let sentCount else {
                throw NotSimple()
            }
            return TraceStream(kind: kind, messages: messages, sentCount: sentCount, receivedCount: receivedCount,
                               omittedCount: omittedCount, byteCount: byteCount, closeCode: closeCode,
                               closeReason: closeReason, closedBy: closedBy)
        }

        mutating func message() throws(NotSimple) -> TraceMessage {
            var index: Int?, direction: MessageDirection?, at: Date?, type: String?, size: Int?, payload: Data?
            var isTruncated: Bool?, eventID: String?
            try record(messageKeys) { (reader: inout Reader, key: Int) throws(NotSimple) in
                switch key {
                case 0: index = try reader.integer()
                case 1: direction = try reader.raw(MessageDirection.self)
                case 2: at = try reader.date()
                case 3: type = try reader.string()
                case 4: size = try reader.integer()
                case 5: payload = try reader.data()
                case 6: isTruncated = try reader.bool()
                default: eventID = try reader.string()
                }
            }
            guard let at, let direction, let index, let isTruncated, let payload, let size, let type else {
                throw NotSimple()
            }
            return TraceMessage(index: index, direction: direction, at: at, type: type, size: size, payload: payload,
                                isTruncated: isTruncated, eventID: eventID)
        }

        mutating func attempt() throws(NotSimple) -> TraceAttempt {
            var number: Int?, startedAt: Date?, requestSentAt: Date?, firstByteAt: Date?, endedAt: Date?
            var status: Int?, error: String?, circuitState: String?, retryReason: String?, retryDelay: Double?
            var notes: [String: String] = [:]
            try record(attemptKeys) { (reader: inout Reader, key: Int) throws(NotSimple) in
                switch key {
                case 0: number = try reader.integer()
                case 1: startedAt = try reader.date()
                case 2: requestSentAt = try reader.date()
                case 3: firstByteAt = try reader.date()
                case 4: endedAt = try reader.date()
                case 5: status = try reader.integer()
                case 6: error = try reader.string()
                case 7: circuitState = try reader.string()
                case 8: retryReason = try reader.string()
                case 9: retryDelay = try reader.double()
                default: notes = try reader.strings()
                }
            }
            guard let number, let startedAt else { throw NotSimple() }
            return TraceAttempt(
                number: number, startedAt: startedAt, requestSentAt: requestSentAt, firstByteAt: firstByteAt,
                endedAt: endedAt, status: status, error: error, circuitState: circuitState, retryReason: retryReason,
                retryDelay: retryDelay, notes: notes)
        }

        mutating func event() throws(NotSimple) -> TraceEvent {
            var kind: ExchangeEventKind?, at: Date?, message: String?, attributes: [String: String]?
            try record(eventKeys) { (reader: inout Reader, key: Int) throws(NotSimple) in
                switch key {
                case 0: kind = ExchangeEventKind(rawValue: try reader.string())
                case 1: at = try reader.date()
                case 2: message = try reader.string()
                default: attributes = try reader.strings()
                }
            }
            guard let at, let attributes, let kind, let message else { throw NotSimple() }
            return TraceEvent(kind: kind, at: at, message: message, attributes: attributes)
        }

        mutating func body() throws(NotSimple) -> TraceBody {
            var data: Data?, size: Int?, isTruncated: Bool?
            try record(bodyKeys) { (reader: inout Reader, key: Int) throws(NotSimple) in
                switch key {
                case 0: data = try reader.data()
                case 1: size = try reader.integer()
                default: isTruncated = try reader.bool()
                }
            }
            guard let data, let isTruncated, let size else { throw NotSimple() }
            return TraceBody(data: data, size: size, isTruncated: isTruncated)
        }

        /// The app that sent it (the listener stamps its hello's over it, ``LinkSessionMachine``).
        mutating func source() throws(NotSimple) -> TraceSource {
            var app: String?, host: String?, pid: Int?
            try record(sourceKeys) { (reader: inout Reader, key: Int) throws(NotSimple) in
                if key == 2 { pid = try reader.integer() } else if key == 0 { app = try reader.string() } else {
                    host = try reader.string()
                }
            }
            guard let app, let host, let pid else { throw NotSimple() }
            return TraceSource(app: app, host: host, pid: pid)
        }

        /// `[{"name":…,"value":…},…]`.
        mutating func headers() throws(NotSimple) -> [TraceHeader] {
            try array { (reader: inout Reader) throws(NotSimple) -> TraceHeader in
                var name: String?, value: String?
                try reader.record(headerKeys) { (reader: inout Reader, key: Int) throws(NotSimple) in
                    if key == 0 { name = try reader.string() } else { value = try reader.string() }
                }
                guard let name, let value else { throw NotSimple() }
                return TraceHeader(name: name, value: value)
            }
        }
    }
}
