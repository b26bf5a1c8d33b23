import Foundation
import Loupe
@_spi(JSON) import LoupeTrace

/// An exchange frame read by hand: the listener's cost per linked exchange (issue 28's budget b, DECISIONS 280).
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

    struct Reader {
        var tokenizer: JSONTokenizer

        var bytes: UnsafeBufferPointer<UInt8> { tokenizer.bytes }

        // MARK: The records, one member per key: a key seen twice or not known leaves it to `JSONDecoder`.

        mutating func exchange() throws(NotSimple) -> TraceExchange {
            var id: UUID?
            var sequence: Int64?
            var operation: String?
            var method: String?
            var url: String?
            var startedAt: Date?
            var endedAt: Date?
            var outcome: ExchangeOutcome?
            var status: Int?
            var error: String?
            var requestHeaders: [TraceHeader]?
            var requestBody: TraceBody?
            var responseHeaders: [TraceHeader]?
            var responseBody: TraceBody?
            var attempts: [TraceAttempt]?
            var events: [TraceEvent]?
            var replayOf: UUID?
            var source: TraceSource?
            var stream: TraceStream?
            var seen = Seen()
            try object { (reader: inout Reader, key: UnsafeBufferPointer<UInt8>) throws(NotSimple) in
                switch key.count {
                case 2 where Self.is(key, "id"):
                    try seen.first(0)
                    id = try reader.uuid()
                case 3 where Self.is(key, "url"):
                    try seen.first(1)
                    url = try reader.string()
                case 5 where Self.is(key, "error"):
                    try seen.first(2)
                    error = try reader.string()
                case 6 where Self.is(key, "method"):
                    try seen.first(3)
                    method = try reader.string()
                case 6 where Self.is(key, "source"):
                    try seen.first(4)
                    source = try reader.source()
                case 6 where Self.is(key, "status"):
                    try seen.first(5)
                    status = try reader.integer()
                case 6 where Self.is(key, "events"):
                    try seen.first(6)
                    events = try reader.array { (reader: inout Reader) throws(NotSimple) in try reader.event() }
                case 6 where Self.is(key, "stream"):
                    try seen.first(18)
                    stream = try reader.stream()
                case 7 where Self.is(key, "endedAt"):
                    try seen.first(7)
                    endedAt = try reader.date()
                case 7 where Self.is(key, "outcome"):
                    try seen.first(8)
                    guard let value = ExchangeOutcome(rawValue: try reader.string()) else { throw NotSimple() }
                    outcome = value
                case 8 where Self.is(key, "attempts"):
                    try seen.first(9)
                    attempts = try reader.array { (reader: inout Reader) throws(NotSimple) in try reader.attempt() }
                case 8 where Self.is(key, "replayOf"):
                    try seen.first(10)
                    replayOf = try reader.uuid()
                case 8 where Self.is(key, "sequence"):
                    try seen.first(11)
                    let value = try reader.integer()
                    sequence = Int64(value)
                case 9 where Self.is(key, "operation"):
                    try seen.first(12)
                    operation = try reader.string()
                case 9 where Self.is(key, "startedAt"):
                    try seen.first(13)
                    startedAt = try reader.date()
                case 11 where Self.is(key, "requestBody"):
                    try seen.first(14)
                    requestBody = try reader.body()
                case 12 where Self.is(key, "responseBody"):
                    try seen.first(15)
                    responseBody = try reader.body()
                case 14 where Self.is(key, "requestHeaders"):
                    try seen.first(16)
                    requestHeaders = try reader.headers()
                case 15 where Self.is(key, "responseHeaders"):
                    try seen.first(17)
                    responseHeaders = try reader.headers()
                default:
                    // A key this version does not know: `JSONDecoder` skips it.
                    throw NotSimple()
                }
            }
            guard let id, let operation, let method, let url, let startedAt, let outcome, let requestHeaders,
                  let responseHeaders, let attempts, let events
            else { throw NotSimple() }
            return TraceExchange(
                id: id, sequence: sequence, operation: operation, method: method, url: url, startedAt: startedAt,
                endedAt: endedAt, outcome: outcome, status: status, error: error, requestHeaders: requestHeaders,
                requestBody: requestBody, responseHeaders: responseHeaders, responseBody: responseBody,
                attempts: attempts, events: events, replayOf: replayOf, source: source, stream: stream)
        }

        mutating func stream() throws(NotSimple) -> TraceStream {
            var byteCount: Int?
            var closeCode: Int?
            var closeReason: String?
            var closedBy: String?
            var kind: ExchangeStreamKind?
            var messages: [TraceMessage]?
            var omittedCount: Int?
            var receivedCount: Int?
            var sentCount: Int?
            var seen = Seen()
            try object { (reader: inout Reader, key: UnsafeBufferPointer<UInt8>) throws(NotSimple) in
                switch key.count {
                case 4 where Self.is(key, "kind"):
                    try seen.first(0)
                    guard let value = ExchangeStreamKind(rawValue: try reader.string()) else { throw NotSimple() }
                    kind = value
                case 8 where Self.is(key, "closedBy"):
                    try seen.first(1)
                    closedBy = try reader.string()
                case 8 where Self.is(key, "messages"):
                    try seen.first(2)
                    messages = try reader.array { (reader: inout Reader) throws(NotSimple) in try reader.message() }
                case 9 where Self.is(key, "byteCount"):
                    try seen.first(3)
                    byteCount = try reader.integer()
                case 9 where Self.is(key, "closeCode"):
                    try seen.first(4)
                    closeCode = try reader.integer()
                case 9 where Self.is(key, "sentCount"):
                    try seen.first(5)
                    sentCount = try reader.integer()
                case 11 where Self.is(key, "closeReason"):
                    try seen.first(6)
                    closeReason = try reader.string()
                case 12 where Self.is(key, "omittedCount"):
                    try seen.first(7)
                    omittedCount = try reader.integer()
                case 13 where Self.is(key, "receivedCount"):
                    try seen.first(8)
                    receivedCount = try reader.integer()
                default:
                    throw NotSimple()
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
            var at: Date?
            var direction: MessageDirection?
            var eventID: String?
            var index: Int?
            var isTruncated: Bool?
            var payload: Data?
            var size: Int?
            var type: String?
            var seen = Seen()
            try object { (reader: inout Reader, key: UnsafeBufferPointer<UInt8>) throws(NotSimple) in
                switch key.count {
                case 2 where Self.is(key, "at"):
                    try seen.first(0)
                    at = try reader.date()
                case 4 where Self.is(key, "size"):
                    try seen.first(1)
                    size = try reader.integer()
                case 4 where Self.is(key, "type"):
                    try seen.first(2)
                    type = try reader.string()
                case 5 where Self.is(key, "index"):
                    try seen.first(3)
                    index = try reader.integer()
                case 7 where Self.is(key, "eventID"):
                    try seen.first(4)
                    eventID = try reader.string()
                case 7 where Self.is(key, "payload"):
                    try seen.first(5)
                    payload = try reader.data()
                case 9 where Self.is(key, "direction"):
                    try seen.first(6)
                    guard let value = MessageDirection(rawValue: try reader.string()) else { throw NotSimple() }
                    direction = value
                case 11 where Self.is(key, "isTruncated"):
                    try seen.first(7)
                    isTruncated = try reader.bool()
                default:
                    throw NotSimple()
                }
            }
            guard let at, let direction, let index, let isTruncated, let payload, let size, let type else {
                throw NotSimple()
            }
            return TraceMessage(index: index, direction: direction, at: at, type: type, size: size, payload: payload,
                                isTruncated: isTruncated, eventID: eventID)
        }

        mutating func attempt() throws(NotSimple) -> TraceAttempt {
            var number: Int?
            var startedAt: Date?
            var requestSentAt: Date?
            var firstByteAt: Date?
            var endedAt: Date?
            var status: Int?
            var error: String?
            var circuitState: String?
            var retryReason: String?
            var retryDelay: Double?
            var notes: [String: String] = [:]
            var seen = Seen()
            try object { (reader: inout Reader, key: UnsafeBufferPointer<UInt8>) throws(NotSimple) in
                switch key.count {
                case 5 where Self.is(key, "error"):
                    try seen.first(0)
                    error = try reader.string()
                case 5 where Self.is(key, "notes"):
                    try seen.first(1)
                    notes = try reader.strings()
                case 6 where Self.is(key, "number"):
                    try seen.first(2)
                    number = try reader.integer()
                case 6 where Self.is(key, "status"):
                    try seen.first(3)
                    status = try reader.integer()
                case 7 where Self.is(key, "endedAt"):
                    try seen.first(4)
                    endedAt = try reader.date()
                case 9 where Self.is(key, "startedAt"):
                    try seen.first(5)
                    startedAt = try reader.date()
                case 10 where Self.is(key, "retryDelay"):
                    try seen.first(6)
                    retryDelay = try reader.double()
                case 11 where Self.is(key, "firstByteAt"):
                    try seen.first(7)
                    firstByteAt = try reader.date()
                case 11 where Self.is(key, "retryReason"):
                    try seen.first(8)
                    retryReason = try reader.string()
                case 12 where Self.is(key, "circuitState"):
                    try seen.first(9)
                    circuitState = try reader.string()
                case 13 where Self.is(key, "requestSentAt"):
                    try seen.first(10)
                    requestSentAt = try reader.date()
                default:
                    throw NotSimple()
                }
            }
            guard let number, let startedAt else { throw NotSimple() }
            return TraceAttempt(
                number: number, startedAt: startedAt, requestSentAt: requestSentAt, firstByteAt: firstByteAt,
                endedAt: endedAt, status: status, error: error, circuitState: circuitState, retryReason: retryReason,
                retryDelay: retryDelay, notes: notes)
        }

        mutating func event() throws(NotSimple) -> TraceEvent {
            var at: Date?
            var attributes: [String: String]?
            var kind: ExchangeEventKind?
            var message: String?
            var seen = Seen()
            try object { (reader: inout Reader, key: UnsafeBufferPointer<UInt8>) throws(NotSimple) in
                switch key.count {
                case 2 where Self.is(key, "at"):
                    try seen.first(0)
                    at = try reader.date()
                case 4 where Self.is(key, "kind"):
                    try seen.first(1)
                    kind = ExchangeEventKind(rawValue: try reader.string())
                case 7 where Self.is(key, "message"):
                    try seen.first(2)
                    message = try reader.string()
                case 10 where Self.is(key, "attributes"):
                    try seen.first(3)
                    attributes = try reader.strings()
                default:
                    throw NotSimple()
                }
            }
            guard let at, let attributes, let kind, let message else { throw NotSimple() }
            return TraceEvent(kind: kind, at: at, message: message, attributes: attributes)
        }

        mutating func body() throws(NotSimple) -> TraceBody {
            var data: Data?
            var isTruncated: Bool?
            var size: Int?
            var seen = Seen()
            try object { (reader: inout Reader, key: UnsafeBufferPointer<UInt8>) throws(NotSimple) in
                switch key.count {
                case 4 where Self.is(key, "data"):
                    try seen.first(0)
                    data = try reader.data()
                case 4 where Self.is(key, "size"):
                    try seen.first(1)
                    size = try reader.integer()
                case 11 where Self.is(key, "isTruncated"):
                    try seen.first(2)
                    isTruncated = try reader.bool()
                default:
                    throw NotSimple()
                }
            }
            guard let data, let isTruncated, let size else { throw NotSimple() }
            return TraceBody(data: data, size: size, isTruncated: isTruncated)
        }

        mutating func source() throws(NotSimple) -> TraceSource {
            var app: String?
            var host: String?
            var pid: Int?
            var seen = Seen()
            try object { (reader: inout Reader, key: UnsafeBufferPointer<UInt8>) throws(NotSimple) in
                switch key.count {
                case 3 where Self.is(key, "app"):
                    try seen.first(0)
                    app = try reader.string()
                case 3 where Self.is(key, "pid"):
                    try seen.first(1)
                    pid = try reader.integer()
                case 4 where Self.is(key, "host"):
                    try seen.first(2)
                    host = try reader.string()
                default:
                    throw NotSimple()
                }
            }
            guard let app, let host, let pid else { throw NotSimple() }
            return TraceSource(app: app, host: host, pid: pid)
        }

        /// `[{"name":…,"value":…},…]`.
        mutating func headers() throws(NotSimple) -> [TraceHeader] {
            try array { (reader: inout Reader) throws(NotSimple) -> TraceHeader in
                var name: String?
                var value: String?
                try reader.object { (reader: inout Reader, key: UnsafeBufferPointer<UInt8>) throws(NotSimple) in
                    if key.count == 4, Self.is(key, "name"), name == nil {
                        name = try reader.string()
                    } else if key.count == 5, Self.is(key, "value"), value == nil {
                        value = try reader.string()
                    } else {
                        throw NotSimple()
                    }
                }
                guard let name, let value else { throw NotSimple() }
                return TraceHeader(name: name, value: value)
            }
        }

        /// An object of strings (notes, attributes), keys read as strings (they may hold escapes); a key twice is
        /// `JSONDecoder`'s to read.
        mutating func strings() throws(NotSimple) -> [String: String] {
            var strings: [String: String] = [:]
            guard tokenizer.nextStrict().kind == .beginObject else { throw NotSimple() }
            let start = tokenizer.position
            if tokenizer.nextStrict().kind == .endObject { return strings }
            tokenizer.position = start
            while true {
                let key = try string()
                guard tokenizer.nextStrict().kind == .colon else { throw NotSimple() }
                guard strings.updateValue(try string(), forKey: key) == nil else { throw NotSimple() }
                let token = tokenizer.nextStrict()
                if token.kind == .endObject { return strings }
                guard token.kind == .comma else { throw NotSimple() }
            }
        }

        // MARK: Containers

        /// `{` then, for each member, `member` with the key's bytes (a key without escapes) to read its value; `}`.
        mutating func object(
            _ member: (inout Reader, UnsafeBufferPointer<UInt8>) throws(NotSimple) -> Void
        ) throws(NotSimple) {
            guard tokenizer.nextStrict().kind == .beginObject else { throw NotSimple() }
            var token = tokenizer.nextStrict()
            if token.kind == .endObject { return }
            while true {
                guard token.kind == .string, token.isPlain, !token.isCut else { throw NotSimple() }
                let key = UnsafeBufferPointer(rebasing: bytes[(token.start + 1)..<(token.end - 1)])
                guard tokenizer.nextStrict().kind == .colon else { throw NotSimple() }
                try member(&self, key)
                token = tokenizer.nextStrict()
                if token.kind == .endObject { return }
                guard token.kind == .comma else { throw NotSimple() }
                token = tokenizer.nextStrict()
            }
        }

        /// `[` elements `]`, each read by `element`.
        mutating func array<Element>(
            _ element: (inout Reader) throws(NotSimple) -> Element
        ) throws(NotSimple) -> [Element] {
            guard tokenizer.nextStrict().kind == .beginArray else { throw NotSimple() }
            var elements: [Element] = []
            let start = tokenizer.position
            if tokenizer.nextStrict().kind == .endArray { return elements }
            tokenizer.position = start
            while true {
                elements.append(try element(&self))
                let token = tokenizer.nextStrict()
                if token.kind == .endArray { return elements }
                guard token.kind == .comma else { throw NotSimple() }
            }
        }

        // MARK: Values

        /// A string: its bytes as they are when it holds no escape (the strict scan checked UTF-8 and control
        /// characters), the simple escapes decoded otherwise; a `\u` escape is left to `JSONDecoder`.
        mutating func string() throws(NotSimple) -> String {
            let token = tokenizer.nextStrict()
            guard token.kind == .string, !token.isCut else { throw NotSimple() }
            if token.isPlain {
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[(token.start + 1)..<(token.end - 1)]),
                              as: UTF8.self)
            }
            var index = token.start
            guard let text = PlainJSONString.read(bytes, at: &index, validUTF8: true), index == token.end else {
                throw NotSimple()
            }
            return text
        }

        /// An integer written as digits (RFC 8259's form, no fraction or exponent) that fits an `Int`.
        mutating func integer() throws(NotSimple) -> Int {
            let token = tokenizer.nextStrict()
            guard token.kind == .number, token.isPlain, !token.isCut, tokenizer.numberVerdict(token) == .valid
            else { throw NotSimple() }
            var index = token.start
            let negative = bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            var value = 0
            while index < token.end {
                let digit = Int(bytes[index] &- 0x30)
                let (times, overflowed) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowedAgain) = negative
                    ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                guard !overflowed, !overflowedAgain else { throw NotSimple() }
                value = sum
                index += 1
            }
            return value
        }

        /// A finite number of RFC 8259's grammar, read by the standard library's correctly rounded parser (as
        /// `JSONDecoder`'s is): the same `Double`.
        mutating func double() throws(NotSimple) -> Double {
            let token = tokenizer.nextStrict()
            guard token.kind == .number, !token.isCut, tokenizer.numberVerdict(token) == .valid else { throw NotSimple() }
            let text = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
            if let value = Self.exactDouble(text) { return value }
            guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { throw NotSimple() }
            // A number too small for a normal `Double` (`1e-400`, a subnormal) is `JSONDecoder`'s to refuse or read.
            guard value == 0 ? Self.mantissaIsZero(text) : value.magnitude >= Double.leastNormalMagnitude else {
                throw NotSimple()
            }
            return value
        }

        /// Powers of ten a `Double` holds exactly.
        static let exactPowersOfTen: [Double] = [
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
            1e19, 1e20, 1e21, 1e22,
        ]

        /// A number written `-?digits(.digits)?` with at most 2⁵³ as its digits and at most 22 after the point, by
        /// one division of two `Double`s that are both exact: IEEE 754 rounds that quotient correctly, so it is
        /// the value a correctly rounded parser (the standard library's, `JSONDecoder`'s) reads, without making a
        /// `String` of the text. Dates as seconds since 1970 with up to six decimals are of this form; nil for the
        /// rest (an exponent, more digits), which the caller parses the general way.
        static func exactDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
            var index = 0
            let negative = text[0] == UInt8(ascii: "-")
            if negative { index = 1 }
            var mantissa: UInt64 = 0
            var decimals = -1  // digits after the point, once there is one
            while index < text.count {
                let byte = text[index]
                if byte == UInt8(ascii: ".") {
                    guard decimals < 0 else { return nil }
                    decimals = 0
                } else {
                    let digit = byte &- 0x30
                    guard digit < 10 else { return nil }  // an exponent
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    guard mantissa <= 1 << 53 else { return nil }
                    if decimals >= 0 { decimals += 1 }
                }
                index += 1
            }
            let places = max(0, decimals)
            guard places < exactPowersOfTen.count else { return nil }
            let value = Double(mantissa) / exactPowersOfTen[places]
            return negative ? -value : value
        }

        /// Whether a number's digits before its exponent are all zeros (`-0.0e5`: a zero written, not an underflow).
        static func mantissaIsZero(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
            for byte in text {
                if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return true }
                if byte > UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { return false }
            }
            return true
        }

        /// Bytes in base64: `JSONDecoder`'s default for `Data`, read by the same initializer.
        mutating func data() throws(NotSimple) -> Data {
            guard let data = Data(base64Encoded: try string()) else { throw NotSimple() }
            return data
        }

        /// Seconds since 1970, as the link's `JSONDecoder` reads dates.
        mutating func date() throws(NotSimple) -> Date {
            Date(timeIntervalSince1970: try double())
        }

        mutating func bool() throws(NotSimple) -> Bool {
            let token = tokenizer.nextStrict()
            guard token.kind == .literal, !token.isCut else { throw NotSimple() }
            switch bytes[token.start] {
            case UInt8(ascii: "t"): return true
            case UInt8(ascii: "f"): return false
            default: throw NotSimple()  // null
            }
        }

        /// An id in the canonical `8-4-4-4-12` form (either case), which `UUID(uuidString:)` reads alike.
        mutating func uuid() throws(NotSimple) -> UUID {
            let token = tokenizer.nextStrict()
            guard token.kind == .string, token.isPlain, !token.isCut,
                  let id = StoredUUID.parse(UnsafeBufferPointer(rebasing: bytes[(token.start + 1)..<(token.end - 1)]))
            else { throw NotSimple() }
            return id
        }

        /// Whether `key` is `name` (whose length the caller has checked).
        static func `is`(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
            memcmp(key.baseAddress!, name.utf8Start, key.count) == 0
        }
    }

    /// The keys of one object read so far, one bit each.
    struct Seen {
        private var bits: UInt32 = 0

        /// Marks key `bit` as seen; a second time leaves the object to `JSONDecoder`.
        mutating func first(_ bit: Int) throws(NotSimple) {
            let mask = UInt32(1) << bit
            guard bits & mask == 0 else { throw NotSimple() }
            bits |= mask
        }
    }
}
