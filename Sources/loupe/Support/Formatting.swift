import Foundation
import Loupe
import LoupeProtobuf
import LoupeTrace
import LoupeFormats

/// Text shapes shared by the commands.
enum Formatting {
    /// Seconds as JSON milliseconds rounded to the microsecond, or nil (JSON `null`) when unknown or when the value
    /// is not finite: JSON has no infinity, and a renderer must not fail on a value already in a store.
    static func jsonMilliseconds(_ seconds: Double?) -> Double? {
        guard let seconds else { return nil }
        let milliseconds = (seconds * 1_000_000).rounded() / 1000
        return milliseconds.isFinite ? milliseconds : nil
    }

    /// `value` as the CLI's JSON: pretty, sorted keys, slashes unescaped.
    ///
    /// Every `Double` in the CLI's JSON shapes is made finite (or nil) before it gets here; the string strategy
    /// is only a backstop so that a field added later without that care prints "Infinity" instead of failing.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        // DEL, C1 and bidi controls as `\u` escapes: the output is read on terminals too.
        return JSONInvisibles.escaped(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// A date for JSON (ISO 8601 with milliseconds), or nil when it is not a real date (a non-finite time, or
    /// beyond the year 9999 which ISO 8601 cannot write in four digits).
    static func jsonDate(_ date: Date?) -> String? {
        guard let date, isPrintable(date) else { return nil }
        return date.formatted(iso8601)
    }

    /// `text` padded with spaces to `width` characters; never cut, unlike `padding(toLength:)`.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// A date for the text tables in the local time zone (`Quantity`'s date and time, as the TUI's detail shows it),
    /// or "—" when it is not a real date.
    static func time(_ date: Date) -> String {
        isPrintable(date) ? Quantity.dateAndTime(date, calendar: localCalendar) : "—"
    }

    /// Years 1 to 9999, the range date formatters print faithfully.
    static func isPrintable(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds.isFinite && (-62_135_596_800...253_402_300_799).contains(seconds)
    }

    static let localCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        return calendar
    }()

    static let iso8601 = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The status column: the code, `SHRT` for a refusal (even one after a real answer: see ``answerBefore(_:)``),
    /// or for a stream that opened `SSE` or the WebSocket's close code.
    static func status(_ summary: TraceSummary) -> String {
        if summary.outcome == .shortCircuited { return summary.outcome.code }
        if let stream = summary.openedStream { return stream.code }
        return summary.status.map { String($0) } ?? summary.outcome.code
    }

    /// `  (503, then short-circuited)` after a row whose retry was refused once the server had answered: both
    /// facts, the server's last answer first; `  (↑ 0 ↓ 21 ended, 1.2 KB)` after a stream's.
    static func answerBefore(_ summary: TraceSummary) -> String {
        if let stream = summary.openedStream {
            // What the stream did, not its last head: `  (↑ 0 ↓ 21 ended, 1.2 KB)`.
            return "  (\(stream.listing), \(Quantity.bytes(stream.byteCount)))"
        }
        guard summary.outcome == .shortCircuited, let status = summary.status else { return "" }
        return "  (\(status), then \(summary.outcome.word))"
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
    /// The stream it carried (kind and counts; `show --json` has the messages), absent for a request and response.
    var stream: StreamJSON?

    init(_ summary: TraceSummary) {
        self.stream = summary.stream.map { StreamJSON($0, startedAt: summary.startedAt, withMessages: false) }
        id = ExchangeLabel.id(summary.id)
        sequence = summary.sequence
        startedAt = Formatting.jsonDate(summary.startedAt) ?? ""
        operation = summary.operation
        method = summary.method
        url = summary.url
        status = summary.status
        outcome = summary.outcome.rawValue
        error = summary.error
        durationMs = Formatting.jsonMilliseconds(summary.duration)
        attempts = summary.attemptCount
        replayOf = summary.replayOf.map(ExchangeLabel.id)
    }
}

/// A stream in `list --json` (counts) and `show --json` (counts and messages): times ISO 8601, offsets in ms from the
/// exchange's start, payloads as text or base64 when not UTF-8.
struct StreamJSON: Encodable {
    struct Message: Encodable {
        var index: Int
        var direction: String
        var at: String
        var offsetMs: Double?
        var type: String
        var size: Int
        var truncated: Bool
        var eventID: String?
        var text: String?
        var base64: String?
        /// A gRPC message read as protobuf's wire format, as `protoc --decode_raw` prints it.
        var protobuf: String?
        /// A gRPC message read by its type from `--descriptor-set`, in protobuf's JSON mapping.
        var json: ProtobufJSONValue?
    }

    var kind: String
    var sent: Int
    var received: Int
    var omitted: Int
    var bytes: Int
    var closeCode: Int?
    var closeReason: String?
    var closedBy: String?
    /// A gRPC call's status by name (`UNAVAILABLE`).
    var grpcStatus: String?
    /// How it ended: `closed`, `ended`, `cut` or `open` (``TraceStream/ending``).
    var ending: String
    var messages: [Message]?

    /// `decoding` gives a gRPC call's descriptor set and recorded method (`package.Service/Method`), which name its
    /// messages' types.
    init(_ stream: TraceStream, startedAt: Date, withMessages: Bool,
         decoding: (set: ProtobufDescriptorSet, method: String)? = nil) {
        kind = stream.kind.rawValue
        sent = stream.sentCount
        received = stream.receivedCount
        omitted = stream.omittedCount
        bytes = stream.byteCount
        closeCode = stream.closeCode
        closeReason = stream.closeReason
        closedBy = stream.closedBy
        grpcStatus = stream.kind == .grpc ? stream.closeCode.map(GRPCStatusName.name) : nil
        ending = stream.ending
        guard withMessages else { return }
        let grpc = stream.kind == .grpc
        messages = stream.messages.map { message in
            // A gRPC message is binary protobuf (even when its bytes happen to be UTF-8): base64 and its fields.
            let text = grpc ? nil : String(data: message.payload, encoding: .utf8)
            let protobuf = grpc && !message.isTruncated ? ProtobufText.decodeRaw(message.payload) : nil
            let json = grpc && !message.isTruncated ? decoding.flatMap { set, method in
                ProtobufJSON.decode(message.payload, method: method, request: message.direction == .sent, in: set)
            } : nil
            return Message(
                index: message.index, direction: message.direction.rawValue, at: Formatting.jsonDate(message.at) ?? "",
                offsetMs: Formatting.jsonMilliseconds(message.at.timeIntervalSince(startedAt)), type: message.type,
                size: message.size, truncated: message.isTruncated, eventID: message.eventID, text: text,
                base64: text == nil ? message.payload.base64EncodedString() : nil, protobuf: protobuf, json: json)
        }
    }
}
