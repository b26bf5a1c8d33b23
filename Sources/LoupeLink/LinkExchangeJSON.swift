import Foundation
import Loupe
import LoupeTrace
import NIOCore

/// An exchange frame written by hand, straight into the frame's buffer: the app's cost per linked exchange
/// was mostly `JSONEncoder`'s tree of boxed values.
///
/// The bytes are what `JSONEncoder` writes with sorted keys and dates as seconds since 1970 (the golden test holds
/// them equal, a streamed exchange's messages included), so the listener's reader (``LinkExchangeReader``, by hand,
/// or `JSONDecoder` for what it leaves) reads them back; only the work differs. `JSONEncoder`
/// builds a tree of boxed values per exchange and then serializes it, and the frame copied its `Data` once more;
/// here each field is appended once to a buffer sized for the whole exchange, and the length is patched in at the
/// end. Fails (nil) exactly where `JSONEncoder` throws: a number that is not finite.
enum LinkExchangeJSON {
    /// The `exchange` frame of `exchange`, or nil when it holds a non-finite number.
    static func frame(_ exchange: TraceExchange) -> ByteBuffer? {
        var writer = Writer(buffer: FrameBytes(capacity: estimatedSize(exchange)))
        defer { writer.buffer.deallocate() }
        writer.buffer.writeLengthAndType(LinkMessageType.exchange.rawValue)
        guard writer.exchange(exchange) else { return nil }
        return writer.buffer.frame()
    }

    /// The JSON alone (tests compare it with `JSONEncoder`'s).
    static func json(_ exchange: TraceExchange) -> [UInt8]? {
        frame(exchange).map { Array($0.readableBytesView.dropFirst(5)) }
    }

    /// Enough for most exchanges in one allocation: the bodies in base64 plus the texts plus room for the rest.
    private static func estimatedSize(_ exchange: TraceExchange) -> Int {
        let bodies = (exchange.requestBody?.data.count ?? 0) + (exchange.responseBody?.data.count ?? 0)
            + (exchange.beforeRule.map { ($0.body?.data.count ?? 0) + $0.url.utf8.count + $0.headers.count * 64 } ?? 0)
        let headers = (exchange.requestHeaders + exchange.responseHeaders).reduce(0) {
            $0 + $1.name.utf8.count + $1.value.utf8.count + 24
        }
        let messages = exchange.stream?.messages.reduce(0) { $0 + $1.payload.count * 4 / 3 + 160 } ?? 0
        return 512 + bodies * 4 / 3 + headers + exchange.url.utf8.count + exchange.attempts.count * 160
            + exchange.events.count * 160 + messages
    }

    struct Writer {
        var buffer: FrameBytes
        /// Whether the object being written has a member yet (a comma goes before the next).
        private var needsComma = false

        init(buffer: FrameBytes) {
            self.buffer = buffer
        }

        // Keys in sorted order, as `JSONEncoder` with `.sortedKeys` writes them; absent optionals are left out.
        mutating func exchange(_ e: TraceExchange) -> Bool {
            open()
            key(#""attempts":"#)
            buffer.writeInteger(UInt8(ascii: "["))
            for (index, attempt) in e.attempts.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                guard self.attempt(attempt) else { return false }
            }
            buffer.writeInteger(UInt8(ascii: "]"))
            if let asked = e.beforeRule {
                key(#""beforeRule":"#)
                open()
                if let body = asked.body { self.body(#""body":"#, body) }
                headers(#""headers":"#, asked.headers)
                string(#""method":"#, asked.method)
                string(#""url":"#, asked.url)
                close()
            }
            if let endedAt = e.endedAt { guard date(#""endedAt":"#, endedAt) else { return false } }
            if let error = e.error { string(#""error":"#, error) }
            key(#""events":"#)
            buffer.writeInteger(UInt8(ascii: "["))
            for (index, event) in e.events.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                guard self.event(event) else { return false }
            }
            buffer.writeInteger(UInt8(ascii: "]"))
            uuid(#""id":"#, e.id)
            string(#""method":"#, e.method)
            string(#""operation":"#, e.operation)
            string(#""outcome":"#, e.outcome.rawValue)
            if let replayOf = e.replayOf { uuid(#""replayOf":"#, replayOf) }
            if let body = e.requestBody { self.body(#""requestBody":"#, body) }
            headers(#""requestHeaders":"#, e.requestHeaders)
            if let body = e.responseBody { self.body(#""responseBody":"#, body) }
            headers(#""responseHeaders":"#, e.responseHeaders)
            if let sequence = e.sequence { integer(#""sequence":"#, Int(sequence)) }
            if let source = e.source {
                key(#""source":"#)
                open()
                string(#""app":"#, source.app)
                string(#""host":"#, source.host)
                integer(#""pid":"#, source.pid)
                close()
            }
            guard date(#""startedAt":"#, e.startedAt) else { return false }
            if let status = e.status { integer(#""status":"#, status) }
            if let stream = e.stream { guard self.stream(stream) else { return false } }
            string(#""url":"#, e.url)
            close()
            return true
        }

        /// A streamed exchange's messages and counts (server-sent events, WebSocket), keys in `JSONEncoder`'s order.
        private mutating func stream(_ s: TraceStream) -> Bool {
            key(#""stream":"#)
            open()
            integer(#""byteCount":"#, s.byteCount)
            if let closeCode = s.closeCode { integer(#""closeCode":"#, closeCode) }
            if let closeReason = s.closeReason { string(#""closeReason":"#, closeReason) }
            if let closedBy = s.closedBy { string(#""closedBy":"#, closedBy) }
            string(#""kind":"#, s.kind.rawValue)
            key(#""messages":"#)
            buffer.writeInteger(UInt8(ascii: "["))
            for (index, message) in s.messages.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                open()
                guard date(#""at":"#, message.at) else { return false }
                string(#""direction":"#, message.direction.rawValue)
                if let eventID = message.eventID { string(#""eventID":"#, eventID) }
                integer(#""index":"#, message.index)
                key(#""isTruncated":"#)
                buffer.writeStaticString(message.isTruncated ? "true" : "false")
                key(#""payload":"#)
                buffer.writeBase64(message.payload)
                integer(#""size":"#, message.size)
                string(#""type":"#, message.type)
                close()
            }
            buffer.writeInteger(UInt8(ascii: "]"))
            integer(#""omittedCount":"#, s.omittedCount)
            integer(#""receivedCount":"#, s.receivedCount)
            integer(#""sentCount":"#, s.sentCount)
            close()
            return true
        }

        private mutating func attempt(_ a: TraceAttempt) -> Bool {
            open()
            if let circuitState = a.circuitState { string(#""circuitState":"#, circuitState) }
            if let endedAt = a.endedAt { guard date(#""endedAt":"#, endedAt) else { return false } }
            if let error = a.error { string(#""error":"#, error) }
            if let firstByteAt = a.firstByteAt { guard date(#""firstByteAt":"#, firstByteAt) else { return false } }
            if !a.notes.isEmpty { dictionary(#""notes":"#, a.notes) }
            integer(#""number":"#, a.number)
            if let requestSentAt = a.requestSentAt { guard date(#""requestSentAt":"#, requestSentAt) else { return false } }
            if let retryDelay = a.retryDelay { guard double(#""retryDelay":"#, retryDelay) else { return false } }
            if let retryReason = a.retryReason { string(#""retryReason":"#, retryReason) }
            guard date(#""startedAt":"#, a.startedAt) else { return false }
            if let status = a.status { integer(#""status":"#, status) }
            close()
            return true
        }

        private mutating func event(_ e: TraceEvent) -> Bool {
            open()
            guard date(#""at":"#, e.at) else { return false }
            dictionary(#""attributes":"#, e.attributes)
            string(#""kind":"#, e.kind.rawValue)
            string(#""message":"#, e.message)
            close()
            return true
        }

        private mutating func body(_ name: StaticString, _ body: TraceBody) {
            key(name)
            open()
            key(#""data":"#)
            buffer.writeBase64(body.data)
            key(#""isTruncated":"#)
            buffer.writeStaticString(body.isTruncated ? "true" : "false")
            integer(#""size":"#, body.size)
            close()
        }

        private mutating func headers(_ name: StaticString, _ headers: [TraceHeader]) {
            key(name)
            buffer.writeInteger(UInt8(ascii: "["))
            for (index, header) in headers.enumerated() {
                if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                open()
                string(#""name":"#, header.name)
                string(#""value":"#, header.value)
                close()
            }
            buffer.writeInteger(UInt8(ascii: "]"))
        }

        private mutating func dictionary(_ name: StaticString, _ values: [String: String]) {
            key(name)
            open()
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                comma()
                quoted(key)
                buffer.writeInteger(UInt8(ascii: ":"))
                quoted(value)
            }
            close()
        }

        // MARK: Pieces

        private mutating func open() {
            buffer.writeInteger(UInt8(ascii: "{"))
            needsComma = false
        }

        private mutating func close() {
            buffer.writeInteger(UInt8(ascii: "}"))
            needsComma = true
        }

        private mutating func comma() {
            if needsComma { buffer.writeInteger(UInt8(ascii: ",")) }
            needsComma = true
        }

        /// `name` is the key as written, quotes and colon included (`"url":`): one write per key.
        private mutating func key(_ name: StaticString) {
            comma()
            buffer.writeStaticString(name)
            // The value follows; whatever it is, the next key needs a comma.
            needsComma = true
        }

        private mutating func string(_ name: StaticString, _ value: String) {
            key(name)
            quoted(value)
        }

        private mutating func integer(_ name: StaticString, _ value: Int) {
            key(name)
            buffer.writeDecimal(value)
        }

        /// An id as `uuidString` writes it (upper-case `8-4-4-4-12`), formatted in place: Foundation's getter
        /// goes through `sprintf` on Linux.
        private mutating func uuid(_ name: StaticString, _ id: UUID) {
            key(name)
            buffer.writeInteger(UInt8(ascii: "\""))
            buffer.writeUUID(id)
            buffer.writeInteger(UInt8(ascii: "\""))
        }

        private mutating func date(_ name: StaticString, _ value: Date) -> Bool {
            double(name, value.timeIntervalSince1970)
        }

        /// `JSONEncoder`'s form: Swift's shortest text that reads back exactly, without a trailing `.0`.
        private mutating func double(_ name: StaticString, _ value: Double) -> Bool {
            guard value.isFinite else { return false }
            key(name)
            // `description`'s text (the same digits `write(to:)` gives), written without making a `String`.
            let start = buffer.count
            value.write(to: &buffer)
            buffer.dropTrailingPointZero(after: start)
            return true
        }

        /// A JSON string: `"` and `\` escaped, control characters as `JSONEncoder` writes them, `/` as it is
        /// (`.withoutEscapingSlashes`). The usual text has none of them and is copied in one write.
        private mutating func quoted(_ value: String) {
            buffer.writeInteger(UInt8(ascii: "\""))
            var value = value
            value.withUTF8 { bytes in
                guard bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                    buffer.writeBytes(bytes)
                    return
                }
                for byte in bytes {
                    switch byte {
                    case UInt8(ascii: "\""): buffer.writeStaticString("\\\"")
                    case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                    case 0x0A: buffer.writeStaticString("\\n")
                    case 0x0D: buffer.writeStaticString("\\r")
                    case 0x09: buffer.writeStaticString("\\t")
                    case 0x08: buffer.writeStaticString("\\b")
                    case 0x0C: buffer.writeStaticString("\\f")
                    case ..<0x20:
                        let hex: [UInt8] = Array("0123456789abcdef".utf8)
                        buffer.writeStaticString("\\u00")
                        buffer.writeInteger(hex[Int(byte >> 4)])
                        buffer.writeInteger(hex[Int(byte & 0x0F)])
                    default: buffer.writeInteger(byte)
                    }
                }
            }
            buffer.writeInteger(UInt8(ascii: "\""))
        }
    }
}
