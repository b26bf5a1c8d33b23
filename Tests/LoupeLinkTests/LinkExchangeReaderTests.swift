import Foundation
import Loupe
import LoupeTrace
import NIOCore
import Testing
@testable import LoupeLink

/// The listener's hand-written exchange reader (DECISIONS 142): what the app's writer writes reads back by hand,
/// field for field, equal to `JSONDecoder`'s reading; anything else is left to `JSONDecoder`, so the reader never
/// accepts a frame `JSONDecoder` refuses, nor reads one differently.
@Suite struct LinkExchangeReaderTests {
    static func json(_ exchange: TraceExchange) throws -> [UInt8] { try #require(LinkExchangeJSON.json(exchange)) }

    static func byHand(_ bytes: [UInt8]) -> TraceExchange? {
        bytes.withUnsafeBytes { LinkExchangeReader.exchange($0) }
    }

    static func byDecoder(_ bytes: [UInt8]) -> TraceExchange? {
        try? LinkProtocol.makeDecoder().decode(TraceExchange.self, from: Data(bytes))
    }

    /// Every field the writer writes, with texts holding the escapes it writes without `\u`.
    static func full(_ number: Int = 1) -> TraceExchange {
        var exchange = LinkExchangeJSONTests.full(number)
        exchange.error = "line one\nline\ttwo \\ \"q\" / é ✓ 😀"
        exchange.stream = LinkExchangeJSONTests.streamed().stream
        return exchange
    }

    @Test("the app's request before a rule crosses the link, written as JSONEncoder writes it (issue 43.7)")
    func theRequestBeforeTheRuleCrossesTheLink() throws {
        var exchange = Self.full()
        exchange.beforeRule = TraceRequest(
            method: "GET", url: "http://api.test/users", headers: [TraceHeader(name: "x-app-only", value: "1")],
            body: TraceBody(data: Data(#"{"quantity":1}"#.utf8), size: 14, isTruncated: false))
        let bytes = try Self.json(exchange)
        let encoder = LinkProtocol.makeEncoder()
        #expect(bytes == Array(try encoder.encode(exchange)), "the hand-written frame is JSONEncoder's")
        let byHand = try #require(Self.byHand(bytes), "read by hand, not left to JSONDecoder")
        #expect(byHand.beforeRule == exchange.beforeRule)
        #expect(byHand == Self.byDecoder(bytes))
    }

    @Test func everyFieldReadsBackByHandAsJSONDecoderReadsIt() throws {
        let exchange = Self.full()
        let bytes = try Self.json(exchange)
        let byHand = try #require(Self.byHand(bytes), "the writer's form is read by hand, not left to JSONDecoder")
        #expect(byHand == Self.byDecoder(bytes))
        // Field by field, against the exchange written (dates through the same seconds-since-1970 rounding).
        #expect(byHand.id == exchange.id)
        #expect(byHand.sequence == 42)
        #expect(byHand.operation == exchange.operation)
        #expect(byHand.method == "POST")
        #expect(byHand.url == exchange.url)
        #expect(byHand.startedAt.timeIntervalSince1970 == exchange.startedAt.timeIntervalSince1970)
        #expect(byHand.endedAt?.timeIntervalSince1970 == exchange.endedAt?.timeIntervalSince1970)
        #expect(byHand.outcome == .httpError)
        #expect(byHand.status == 503)
        #expect(byHand.error == exchange.error)
        #expect(byHand.requestHeaders == exchange.requestHeaders)
        #expect(byHand.requestBody == exchange.requestBody)
        #expect(byHand.responseHeaders == exchange.responseHeaders)
        #expect(byHand.responseBody == exchange.responseBody)
        #expect(byHand.replayOf == exchange.replayOf)
        #expect(byHand.source == exchange.source)
        #expect(byHand.attempts.count == 2)
        let attempt = byHand.attempts[0]
        #expect(attempt.number == 1)
        #expect(attempt.requestSentAt != nil && attempt.firstByteAt != nil && attempt.endedAt != nil)
        #expect(attempt.status == 503)
        #expect(attempt.error == "e")
        #expect(attempt.circuitState == "closed")
        #expect(attempt.retryReason == "503")
        #expect(attempt.retryDelay == 0.5)
        #expect(attempt.notes == exchange.attempts[0].notes)
        #expect(byHand.attempts[1].notes.isEmpty && byHand.attempts[1].status == nil)
        #expect(byHand.events.count == 1)
        #expect(byHand.events[0].kind == .retryScheduled)
        #expect(byHand.events[0].message == "retry in 500 ms")
        #expect(byHand.events[0].attributes == exchange.events[0].attributes)
        let stream = try #require(byHand.stream)
        let written = try #require(exchange.stream)
        #expect(stream.kind == .webSocket)
        #expect((stream.sentCount, stream.receivedCount, stream.omittedCount, stream.byteCount) == (3, 6, 7, 9_000))
        #expect(stream.closeCode == 1000 && stream.closeReason == "bye\n" && stream.closedBy == "server")
        #expect(stream.messages.count == 2)
        for (read, sent) in zip(stream.messages, written.messages) {
            #expect(read.index == sent.index && read.direction == sent.direction && read.type == sent.type)
            #expect(read.size == sent.size && read.payload == sent.payload && read.isTruncated == sent.isTruncated)
            #expect(read.eventID == sent.eventID)
            #expect(read.at.timeIntervalSince1970 == sent.at.timeIntervalSince1970)
        }
    }

    @Test func theLeastExchangeReadsBackByHand() throws {
        let exchange = TraceExchange(
            id: UUID(), operation: "", method: "GET", url: "", startedAt: Date(timeIntervalSince1970: 0), outcome: .cancelled)
        let bytes = try Self.json(exchange)
        let byHand = try #require(Self.byHand(bytes))
        #expect(byHand == exchange)
        #expect(byHand == Self.byDecoder(bytes))
    }

    /// The app's writer, then the reader: 300 seeded exchanges with odd texts and numbers, each equal to
    /// `JSONDecoder`'s reading, by hand whenever the text holds no `\u` escape.
    @Test func randomExchangesReadBackByHandAsJSONDecoderReadsThem() throws {
        var random = LinkFuzzTests.SeededRandom(state: 0x5EED_0280)
        func makeText(controls: Bool) -> String {
            let scalars: [UInt32] = [0x09, 0x0A, 0x0D, 0x22, 0x2F, 0x41, 0x5C, 0x7A, 0xE9, 0x2713, 0x1F600]
                + (controls ? [0x01, 0x1F] : [])
            return String((0..<Int.random(in: 0..<12, using: &random)).map { _ in
                Character(Unicode.Scalar(scalars.randomElement(using: &random)!)!)
            })
        }
        var byHandCount = 0
        for round in 0..<300 {
            let controls = round % 10 == 0
            func text() -> String { makeText(controls: controls) }
            var exchange = Self.full(round)
            exchange.operation = text()
            exchange.url = text()
            exchange.error = Bool.random(using: &random) ? text() : nil
            exchange.startedAt = Date(timeIntervalSince1970: Double.random(in: -1e10...1e10, using: &random))
            exchange.endedAt = Bool.random(using: &random)
                ? Date(timeIntervalSince1970: Double.random(in: 0...2e9, using: &random)) : nil
            exchange.attempts[0].retryDelay = Double.random(in: 0...1e-3, using: &random)
            exchange.attempts[0].notes = Dictionary([(text(), text()), (text(), text())], uniquingKeysWith: { first, _ in first })
            exchange.events[0].attributes = [text(): text()]
            exchange.requestHeaders = [TraceHeader(name: text(), value: text())]
            exchange.status = Bool.random(using: &random) ? Int.random(in: Int.min...Int.max, using: &random) : nil
            exchange.sequence = Bool.random(using: &random) ? Int64.random(in: Int64.min...Int64.max, using: &random) : nil
            exchange.requestBody = Bool.random(using: &random)
                ? TraceBody(data: Data((0..<Int.random(in: 0..<40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }),
                            size: Int.random(in: 0...1 << 40, using: &random), isTruncated: Bool.random(using: &random))
                : nil
            let bytes = try Self.json(exchange)
            let viaDecoder = try #require(Self.byDecoder(bytes), "round \(round)")
            if let byHand = Self.byHand(bytes) {
                byHandCount += 1
                #expect(byHand == viaDecoder, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            } else {
                #expect(controls, "round \(round): only a `\\u` escape is left to JSONDecoder: \(String(decoding: bytes, as: UTF8.self))")
            }
            // And through the codec, as the listener reads a frame.
            var frame = try #require(LinkExchangeJSON.frame(exchange))
            #expect(try LinkFrameCodec.next(from: &frame) == .exchange(viaDecoder), "round \(round)")
        }
        #expect(byHandCount >= 270)
    }

    /// The short way to a `Double` (exact mantissa, exact power of ten, one division) reads what the standard
    /// library's correctly rounded parser reads, and declines what it cannot be sure of.
    @Test func numbersReadTheShortWayAreTheCorrectlyRoundedOnes() {
        func short(_ text: String) -> Double? {
            Array(text.utf8).withUnsafeBufferPointer { LinkExchangeReader.Reader.exactDouble($0) }
        }
        var random = LinkFuzzTests.SeededRandom(state: 0xD0_0B1E)
        var taken = 0
        for round in 0..<20_000 {
            let value: Double = switch round % 4 {
            case 0: Double.random(in: 1.6e9...1.8e9, using: &random)  // dates now
            case 1: Double.random(in: 0...1, using: &random)
            case 2: Double(Int.random(in: -1_000_000...1_000_000, using: &random)) / 1_000
            default: Double.random(in: -1e10...1e10, using: &random)
            }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            if let read = short(text) {
                taken += 1
                #expect(read == Double(text) && read.sign == Double(text)!.sign, "\(text)")
            }
        }
        #expect(taken > 10_000, "most dates and short decimals are read the short way")
        #expect(short("0") == 0 && short("-0")?.sign == .minus && short("1700000000.125") == 1_700_000_000.125)
        #expect(short("9007199254740992") == 9_007_199_254_740_992)
        #expect(short("9007199254740993") == nil, "past 2⁵³: the general parser")
        #expect(short("1.0000000000000000000001") == nil, "23 decimals: the general parser")
        #expect(short("1e5") == nil && short("1.5E-3") == nil, "an exponent: the general parser")
    }

    // MARK: Hostile and unusual payloads: the codec answers exactly as with JSONDecoder alone.

    /// What `JSONDecoder` alone answers for `bytes`: the exchange, or the one line the listener refuses with.
    static func decoderAlone(_ bytes: [UInt8]) -> Result<TraceExchange, LinkProtocolError> {
        guard let exchange = byDecoder(bytes) else { return .failure(.badPayload(.exchange)) }
        return .success(exchange)
    }

    static func codec(_ bytes: [UInt8]) -> Result<TraceExchange, LinkProtocolError> {
        var frame = LinkFrameCodec.frame(.exchange, payload: bytes)
        do throws(LinkProtocolError) {
            guard case .exchange(let exchange)? = try LinkFrameCodec.next(from: &frame) else {
                Issue.record("not an exchange frame")
                return .failure(.emptyFrame)
            }
            return .success(exchange)
        } catch {
            return .failure(error)
        }
    }

    /// Edits of the writer's JSON, each read as JSONDecoder reads it: wrong types refused, unknown keys and
    /// `null` optionals read, a key twice or a `\u` escape left to it.
    @Test(arguments: [
        // Wrong types, missing or broken values: refused.
        (#""status":503"#, #""status":"503""#),
        (#""status":503"#, #""status":503.5"#),
        (#""status":503"#, #""status":99999999999999999999999"#),
        (#""method":"POST""#, #""method":7"#),
        (#""method":"POST""#, #""method":["POST"]"#),
        (#""method":"POST","#, ""),
        (#""outcome":"httpError""#, #""outcome":"nope""#),
        (#""startedAt":"#, #""startedAt":"x","x":"#),
        (#""isTruncated":true"#, #""isTruncated":1"#),
        (#""isTruncated":true"#, #""isTruncated":"true""#),
        (#""data":"AAEC/w==""#, #""data":"AAEC/w=""#),
        (#""data":"AAEC/w==""#, #""data":"!!!!""#),
        (#""id":"01890000"#, #""id":"x1890000"#),
        (#""number":1"#, #""number":null"#),
        (#""name":"authorization""#, #""name":null"#),
        (#""attempts":["#, #""attempts":{"a":1},"x":["#),
        // Read by JSONDecoder (and so by the listener), not by hand.
        (#""status":503"#, #""status":503,"unknown":{"deep":[1,2,{"x":null}]}"#),
        (#""status":503"#, #""status":null"#),
        (#""status":503"#, #""status":503.0"#),
        (#""status":503"#, #""status":5.03e2"#),
        (#""status":503"#, #""status":-0"#),
        (#""method":"POST""#, #""method":"P\u004fST""#),
        (#""method":"POST""#, #""method":"POST","method":"PUT""#),
        (#""id":"01890000-0000-7000-8000-000000000001""#, #""id":"01890000-0000-7000-8000-00000000000a""#),
        (#""retryDelay":0.5"#, #""retryDelay":5E-1"#),
        (#""retryDelay":0.5"#, #""retryDelay":1e400"#),
        (#""retryDelay":0.5"#, #""retryDelay":1e-400"#),
        (#""retryDelay":0.5"#, #""retryDelay":-0.0"#),
        (#""retryDelay":0.5"#, #""retryDelay":.5"#),
        (#""retryDelay":0.5"#, #""retryDelay":05"#),
        (#""data":"AAEC/w==""#, #""data":"AAEC\/w==""#),
    ])
    func anEditedPayloadIsReadOrRefusedAsJSONDecoderWould(original: String, edited: String) throws {
        let text = String(decoding: try Self.json(Self.full()), as: UTF8.self)
        #expect(text.contains(original), "the writer's JSON holds \(original)")
        let bytes = Array(text.replacingOccurrences(of: original, with: edited).utf8)
        #expect(Self.codec(bytes) == Self.decoderAlone(bytes), "\(edited)")
    }

    /// Around the JSON: whitespace is JSON, anything else is not.
    @Test func whatSurroundsTheObjectIsReadAsJSONDecoderWould() throws {
        let bytes = try Self.json(Self.full())
        for edited in [[0x20, 0x0A] + bytes + [0x0D, 0x09], bytes + [0x20, 0x7B], bytes + Array("{}".utf8), [0xEF, 0xBB, 0xBF] + bytes,
                       Array(bytes.dropLast()), Array(bytes.dropFirst()), [], Array("[]".utf8), Array("null".utf8)] {
            #expect(Self.codec(edited) == Self.decoderAlone(edited), "\(String(decoding: edited.prefix(8), as: UTF8.self))…")
        }
    }

    /// Seeded random damage to the writer's JSON (bytes flipped, cut, inserted, invalid UTF-8): every edit reads or
    /// is refused exactly as with JSONDecoder alone, and the hand reader never reads what JSONDecoder refuses.
    @Test func damagedPayloadsAreReadOrRefusedAsJSONDecoderWould() throws {
        var random = LinkFuzzTests.SeededRandom(state: 0xDA_0280)
        let original = try Self.json(Self.full())
        let alphabet = Array("{}[]:,\"\\0123456789.-+eEtruefalsn aA/u".utf8) + [0x00, 0x01, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xED, 0xF0, 0xFF]
        var refused = 0
        for round in 0..<2_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
                default: bytes = Array(bytes.prefix(at))
                }
                if bytes.isEmpty { bytes = [0x20] }
            }
            let expected = Self.decoderAlone(bytes)
            if case .failure = expected { refused += 1 }
            if let byHand = Self.byHand(bytes) {
                #expect(expected == .success(byHand), "round \(round): the hand reader read what JSONDecoder does not")
            }
            #expect(Self.codec(bytes) == expected, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(refused > 1_000, "most damage is refused")
    }
}
