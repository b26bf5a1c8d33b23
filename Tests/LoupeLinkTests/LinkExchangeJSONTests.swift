import Foundation
import Loupe
import LoupeTrace
import NIOCore
import Testing
@testable import LoupeLink

/// The hand-written exchange frame (DECISIONS 142): the bytes `JSONEncoder` writes, and every exchange reads back
/// equal through the listener's `Codable` decoder.
@Suite struct LinkExchangeJSONTests {
    /// Every field set, with texts that need escaping, notes and attributes to sort, a source and a sequence.
    static func full(_ number: Int = 1) -> TraceExchange {
        let start = Date(timeIntervalSince1970: 1_700_000_000.125 + Double(number))
        return TraceExchange(
            id: UUID(uuidString: "01890000-0000-7000-8000-00000000000\(number % 10)")!, sequence: 42,
            operation: "get \"user\"\\n", method: "POST", url: "https://api.test/users/1?q=a/b",
            startedAt: start, endedAt: start.addingTimeInterval(0.25), outcome: .httpError, status: 503,
            error: "line one\nline\ttwo \u{01} é ✓",
            requestHeaders: [TraceHeader(name: "authorization", value: "[REDACTED]"), TraceHeader(name: "x", value: "")],
            requestBody: TraceBody(data: Data([0, 1, 2, 255]), size: 10, isTruncated: true),
            responseHeaders: [TraceHeader(name: "Content-Type", value: "application/json")],
            responseBody: TraceBody(data: Data("{\"a\":1}".utf8), size: 7, isTruncated: false),
            attempts: [
                TraceAttempt(number: 1, startedAt: start, requestSentAt: start.addingTimeInterval(0.001),
                             firstByteAt: start.addingTimeInterval(0.1), endedAt: start.addingTimeInterval(0.11),
                             status: 503, error: "e", circuitState: "closed", retryReason: "503",
                             retryDelay: 0.5, notes: ["z": "1", "cache": "miss", "circuit.key": "api.test"]),
                TraceAttempt(number: 2, startedAt: start.addingTimeInterval(0.2)),
            ],
            events: [TraceEvent(kind: .retryScheduled, at: start.addingTimeInterval(0.12), message: "retry in 500 ms",
                                attributes: ["delayMs": "500", "attempt": "1"])],
            replayOf: UUID(uuidString: "01890000-0000-7000-8000-0000000000FF")!,
            source: TraceSource(app: "checkout", host: "box", pid: 7))
    }

    static func encoder() -> JSONEncoder { LinkProtocol.makeEncoder() }

    @Test func theBytesAreJSONEncodersWithSortedKeys() throws {
        for exchange in [Self.full(), LinkFrameCodecTests.exchange, TraceExchange(
            id: UUID(), operation: "", method: "GET", url: "", startedAt: Date(timeIntervalSince1970: 0), outcome: .cancelled)]
        {
            let expected = try Self.encoder().encode(exchange)
            let written = try #require(LinkExchangeJSON.json(exchange))
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        }
    }

    @Test func theFrameCarriesTheLengthAndType() throws {
        let frame = try #require(LinkExchangeJSON.frame(Self.full()))
        #expect(frame.getInteger(at: 0, as: UInt32.self) == UInt32(frame.readableBytes - 4))
        #expect(frame.getInteger(at: 4, as: UInt8.self) == LinkMessageType.exchange.rawValue)
        var copy = frame
        // Dates as seconds since 1970 are not exact in a `Date` (seconds since 2001): compare with what the
        // `JSONEncoder` bytes read back as, the same rounding.
        let viaEncoder = try LinkProtocol.makeDecoder().decode(TraceExchange.self, from: Self.encoder().encode(Self.full()))
        #expect(try LinkFrameCodec.next(from: &copy) == .exchange(viaEncoder))
    }

    /// Seeded random exchanges, odd numbers and texts included, read back by the listener's decoder exactly as
    /// `JSONEncoder`'s bytes do (dates as seconds since 1970 round the same way in both).
    @Test func randomExchangesReadBackEqual() throws {
        var random = LinkFuzzTests.SeededRandom(state: 0x1234_5678)
        func text() -> String {
            String((0..<Int.random(in: 0..<12, using: &random)).map { _ in
                Character(Unicode.Scalar([0x01, 0x09, 0x0A, 0x22, 0x2F, 0x41, 0x5C, 0x7A, 0xE9, 0x2713, 0x1F600]
                    .randomElement(using: &random)!)!)
            })
        }
        func time() -> Date { Date(timeIntervalSince1970: Double.random(in: -1e10...1e10, using: &random)) }
        for round in 0..<300 {
            var exchange = Self.full(round)
            exchange.operation = text()
            exchange.url = text()
            exchange.error = Bool.random(using: &random) ? text() : nil
            exchange.startedAt = time()
            exchange.endedAt = Bool.random(using: &random) ? time() : nil
            exchange.attempts[0].retryDelay = Double.random(in: 0...1e-3, using: &random)
            exchange.attempts[0].notes = Dictionary([(text(), text()), (text(), text())], uniquingKeysWith: { first, _ in first })
            exchange.events[0].attributes = [text(): text()]
            exchange.requestHeaders = [TraceHeader(name: text(), value: text())]
            exchange.status = Bool.random(using: &random) ? Int.random(in: -1_000...1_000, using: &random) : nil
            let json = try #require(LinkExchangeJSON.json(exchange), "round \(round)")
            let decoder = LinkProtocol.makeDecoder()
            let decoded = try decoder.decode(TraceExchange.self, from: Data(json))
            let viaEncoder = try decoder.decode(TraceExchange.self, from: Self.encoder().encode(exchange))
            #expect(decoded == viaEncoder, "round \(round): \(String(decoding: json, as: UTF8.self))")
            var texts = exchange
            texts.startedAt = decoded.startedAt
            texts.endedAt = decoded.endedAt
            texts.attempts = decoded.attempts
            texts.events = decoded.events
            #expect(decoded == texts, "round \(round): every text and number but the dates reads back as it was")
        }
    }

    /// The writer's own number, id and base64 code (DECISIONS 142) against `JSONEncoder`'s, byte for byte: bodies of
    /// every length modulo 3 and every byte, integers from `Int.min` to `Int.max`, dates and delays of every scale
    /// (whole, tiny, huge, negative), random ids.
    @Test func randomNumbersIdsAndBodiesAreJSONEncodersBytes() throws {
        var random = LinkFuzzTests.SeededRandom(state: 0x5EED_0331)
        func integer() -> Int {
            [Int.min, Int.max, 0, -1, 9, 10, Int.random(in: .min ... .max, using: &random),
             Int.random(in: -99_999...99_999, using: &random)].randomElement(using: &random)!
        }
        func seconds() -> Double {
            let scale = [1e-9, 1e-3, 1, 1e3, 1e9, 1e15, 1e17, 1e300].randomElement(using: &random)!
            let value = Double.random(in: -1...1, using: &random) * scale
            return Bool.random(using: &random) ? value.rounded() : value
        }
        func data() -> Data { Data((0..<Int.random(in: 0..<10, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }) }
        for round in 0..<500 {
            var exchange = Self.full(round)
            exchange.id = UUID()
            exchange.replayOf = Bool.random(using: &random) ? UUID() : nil
            exchange.status = integer()
            exchange.sequence = Int64(integer())
            exchange.startedAt = Date(timeIntervalSince1970: seconds())
            exchange.attempts[0].retryDelay = seconds()
            exchange.attempts[1].number = integer()
            exchange.requestBody = TraceBody(data: data(), size: integer(), isTruncated: Bool.random(using: &random))
            exchange.source = TraceSource(app: "a", host: "h", pid: integer())
            let expected = try Self.encoder().encode(exchange)
            let written = try #require(LinkExchangeJSON.json(exchange), "round \(round)")
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "round \(round)")
        }
    }

    /// A streamed exchange (WebSocket, server-sent events): its stream with every field, in `JSONEncoder`'s bytes.
    static func streamed() -> TraceExchange {
        var exchange = full()
        let at = Date(timeIntervalSince1970: 1_700_000_000.5)
        exchange.stream = TraceStream(
            kind: .webSocket,
            messages: [
                TraceMessage(index: 0, direction: .sent, at: at, type: "text", size: 5, payload: Data("hello".utf8)),
                TraceMessage(index: 7, direction: .received, at: at.addingTimeInterval(0.25), type: "binary", size: 4_096,
                             payload: Data([0, 255, 1]), isTruncated: true, eventID: "e\"1\""),
            ],
            sentCount: 3, receivedCount: 6, omittedCount: 7, byteCount: 9_000, closeCode: 1000,
            closeReason: "bye\n", closedBy: "server")
        return exchange
    }

    @Test func aStreamedExchangeIsWrittenAsJSONEncoderWritesIt() throws {
        var sse = Self.streamed()
        sse.stream = TraceStream(kind: .eventStream, messages: [
            TraceMessage(index: 0, direction: .received, at: Date(timeIntervalSince1970: 2), type: "message", size: 0, payload: Data()),
        ])
        for exchange in [Self.streamed(), sse] {
            let expected = try Self.encoder().encode(exchange)
            let written = try #require(LinkExchangeJSON.json(exchange))
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            var frame = try #require(LinkExchangeJSON.frame(exchange))
            guard case .exchange(let read)? = try LinkFrameCodec.next(from: &frame) else {
                Issue.record("not an exchange")
                continue
            }
            #expect(read.stream == exchange.stream.map { stream in
                var stream = stream
                for index in stream.messages.indices {
                    stream.messages[index].at = Date(timeIntervalSince1970: stream.messages[index].at.timeIntervalSince1970)
                }
                return stream
            })
        }
    }

    @Test func aNumberJSONCannotHoldFailsAsJSONEncoderDoes() {
        var exchange = Self.full()
        exchange.attempts[0].retryDelay = .nan
        #expect(LinkExchangeJSON.frame(exchange) == nil)
        #expect(throws: (any Error).self) { try Self.encoder().encode(exchange) }
    }
}
