import Foundation
import Loupe
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// The writer's shortcuts of DECISIONS 51, 53, 68 against the work they skip: each must answer exactly as the slow
/// path did, and in particular never skip a text that holds something to redact.
@Suite("Redaction fast paths")
struct RedactionFastPathTests {
    // MARK: TextMarks

    /// `bearer ` or `basic ` (any case) after a non-letter, as the matcher before DECISIONS 53 found it (with its
    /// `index + 6 < count` bound): written out naively, byte by byte, from `start` on (`TextMarksFromBlanksTests`
    /// asks from each offset).
    static func referenceAuthScheme(_ bytes: [UInt8], from start: Int = 0) -> Bool {
        var index = start
        while index + 6 < bytes.count {
            if bytes[index] | 0x20 == UInt8(ascii: "b"), index == 0 || !ASCIIBytes.isLetter(bytes[index - 1]) {
                for word in ["bearer", "basic"] {
                    let letters = Array(word.utf8)
                    guard index + letters.count < bytes.count,
                          (0..<letters.count).allSatisfy({ bytes[index + $0] | 0x20 == letters[$0] }),
                          bytes[index + letters.count] == 0x20 || bytes[index + letters.count] == 0x09 else { continue }
                    return true
                }
            }
            index += 1
        }
        return false
    }

    private static func referenceScheme(_ bytes: [UInt8]) -> Bool {
        let plain = Array("://".utf8), escaped = Array(#":\/\/"#.utf8)
        for index in bytes.indices {
            if bytes[index...].starts(with: plain), index + 2 < bytes.count { return true }
            if bytes[index...].starts(with: escaped) { return true }
        }
        return false
    }

    private static func reference(_ text: String) -> TextMarks {
        let bytes = Array(text.utf8)
        var marks = TextMarks("")
        marks.question = bytes.contains(UInt8(ascii: "?"))
        marks.hash = bytes.contains(UInt8(ascii: "#"))
        marks.at = bytes.contains(UInt8(ascii: "@"))
        marks.scheme = referenceScheme(bytes)
        marks.authScheme = referenceAuthScheme(bytes)
        return marks
    }

    @Test("one pass finds what the separate scans found, on random text with every mark at every offset")
    func marksAnswerAsTheScansDid() {
        var generator = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        var random = SeededGenerator(seed: seed)
        let pieces = ["a", "b", "B", "x", " ", "\t", "?", "#", "@", ":", "/", "\\", "://", #":\/\/"#, "bearer ",
                      "Basic\t", "BEARER", "basic", "xbearer ", "1bearer ", "é", "-", "=", "`", "b"]
        for _ in 0..<4_000 {
            let count = Int(random.next() % 12)
            let text = (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            #expect(TextMarks(text) == Self.reference(text), "seed \(seed): \(text.debugDescription)")
            #expect(RedactionPolicy.containsScheme(text) == Self.reference(text).scheme, "seed \(seed)")
            #expect(RedactionPolicy.hasAuthScheme(text) == Self.reference(text).authScheme, "seed \(seed)")
        }
        // Early `:`s and `b`s answer the matchers' questions once; what comes far after them must still count.
        let late = [
            #"{"a":1,"b":2,"c":3,"d":4,"e":5,"link":"https://x.example/cb?access_token=abcdefgh12345678"}"#,
            "abc:def:ghi:jkl:mno:pqr:stu:vwx Authorization: Bearer tok_ABCDEFGH12345678",
            "4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7 and then basic dXNlcjpwYXNzd29yZA==",
            "b:b:b:b:b:b:b:b:b:b:b:b:b:b:b:b:b:b:b:b:b:b:b:b @ # ?",
        ]
        for text in late {
            #expect(TextMarks(text) == Self.reference(text), "\(text)")
        }
        // Each mark alone at every offset of texts 1 to 40 bytes long: inside an eight-byte word, across two,
        // and in the tail shorter than a word.
        for length in 1...40 {
            for offset in 0..<length {
                for mark: Unicode.Scalar in ["?", "#", "@"] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "k"), count: length)
                    bytes[offset] = UInt8(ascii: mark)
                    let text = String(decoding: bytes, as: UTF8.self)
                    #expect(TextMarks(text) == Self.reference(text), "\(text)")
                }
                for word in ["://", "Bearer t", " basic x"] where offset + word.utf8.count <= length {
                    var bytes = [UInt8](repeating: UInt8(ascii: "."), count: length)
                    bytes.replaceSubrange(offset..<(offset + word.utf8.count), with: word.utf8)
                    let text = String(decoding: bytes, as: UTF8.self)
                    #expect(TextMarks(text) == Self.reference(text), "\(text)")
                }
            }
        }
    }

    @Test("a header value is still redacted when its credential or URL sits past the first word, or in the tail")
    func headerValuesAreNotSkipped() {
        let policy = RedactionPolicy()
        // `X-Debug` is no secret's name: only the scan of its value can find what to redact.
        let cases = [
            ("0123456789abcdef Bearer sk_live_ABCDEF123456", "0123456789abcdef Bearer [REDACTED]"),
            ("b Bearer sk_live_ABCDEF123456", "b Bearer [REDACTED]"),
            ("see https://api.example.com/cb?access_token=tok12345678", "see https://api.example.com/cb?access_token=%5BREDACTED%5D"),
        ]
        for (value, expected) in cases {
            let headers = policy.redact(headers: [TraceHeader(name: "X-Debug", value: value)])
            #expect(headers.first?.value == expected, "\(value)")
        }
        // A relative redirect target: only `?` tells the scan to look.
        let location = policy.redact(headers: [TraceHeader(name: "Location", value: "/cb?code=abc123456789&state=x")])
        #expect(location.first?.value == "/cb?code=%5BREDACTED%5D&state=x")
    }

    @Test("an error text and a note still give up a bearer token quoted after eight innocent bytes")
    func freeTextIsNotSkipped() {
        var exchange = TraceExchange(
            id: UUID(), operation: "GET /v1/ping", method: "GET", url: "https://api.example.com/v1/ping",
            startedAt: Date(timeIntervalSince1970: 0), outcome: .transportError,
            error: "upstream said: Bearer tok_ABCDEFGH12345678 was refused", requestHeaders: [], responseHeaders: [])
        exchange.attempts = [TraceAttempt(number: 1, startedAt: Date(timeIntervalSince1970: 0),
                                          notes: ["echo": "retrying with Bearer tok_ABCDEFGH12345678"])]
        let redacted = RedactionPolicy().redact(exchange: exchange)
        #expect(redacted.error == "upstream said: Bearer [REDACTED] was refused")
        #expect(redacted.attempts[0].notes["echo"] == "retrying with Bearer [REDACTED]")
    }

    // MARK: Scrubbing

    @Test("a text as long as the shortest needle is scrubbed; only shorter ones are skipped")
    func shortTextsAreSkippedOnlyWhenTooShort() throws {
        let scrubber = try #require(ValueScrubber(needles: [Array("abcdef".utf8), Array("longer-needle".utf8)]))
        #expect(scrubber.scrub("abcdef") == RedactionPolicy.marker)
        #expect(scrubber.scrub("abcde") == "abcde")
        #expect(scrubber.scrub(Data("abcdef".utf8)) == Data(RedactionPolicy.marker.utf8))
        #expect(scrubber.scrub(Data("abcde".utf8)) == nil)
        #expect(scrubber.scrub("xabcdefx", marker: RedactionPolicy.urlMarker) == "x\(RedactionPolicy.urlMarker)x")
    }

    // MARK: The collector and the scrubber cache

    @Test("the collector keeps distinct values past the point where it starts indexing them")
    func collectorKeepsDistinctValues() {
        var collector = SecretCollector(minimumLength: 6)
        let values = (0..<40).map { "secret-value-\($0)" }
        for round in 0..<3 {
            for value in values { collector.add(value) }
            #expect(collector.list == values, "round \(round)")
        }
        #expect(collector.values == Set(values))
    }

    @Test("the scrubber cache matches a set in any order, and never a different set of the same size")
    func cacheMatchesSetsNotOrders() throws {
        let first = try #require(ValueScrubberCache.scrubber(values: ["order-AAAA-1", "order-BBBB-2"], minimumLength: 6))
        let swapped = try #require(ValueScrubberCache.scrubber(values: ["order-BBBB-2", "order-AAAA-1"], minimumLength: 6))
        let other = try #require(ValueScrubberCache.scrubber(values: ["order-AAAA-1", "order-CCCC-3"], minimumLength: 6))
        for scrubber in [first, swapped] {
            #expect(scrubber.scrub("x order-AAAA-1 order-BBBB-2") == "x [REDACTED] [REDACTED]")
        }
        #expect(other.scrub("order-BBBB-2 order-CCCC-3") == "order-BBBB-2 [REDACTED]")
        let many = (0..<12).map { "many-secret-\($0 < 10 ? "0" : "")\($0)" }  // none inside another
        let manyScrubber = try #require(ValueScrubberCache.scrubber(values: many, minimumLength: 6))
        let reversed = try #require(ValueScrubberCache.scrubber(values: many.reversed(), minimumLength: 6))
        let changed = try #require(ValueScrubberCache.scrubber(values: many.dropLast() + ["many-secret-X"], minimumLength: 6))
        #expect(manyScrubber.scrub("many-secret-11") == "[REDACTED]")
        #expect(reversed.scrub("many-secret-11") == "[REDACTED]")
        #expect(changed.scrub("many-secret-11") == "many-secret-11")
        #expect(changed.scrub("many-secret-X") == "[REDACTED]")
    }

    // MARK: Content type

    @Test("the content type is found in any case, as lowercasing each name found it")
    func contentTypeAnyCase() {
        let names = ["Content-Type", "content-type", "CONTENT-TYPE", "cOnTeNt-TyPe", "Content_Type", "Content-Typ",
                     "Content-Types", "ContentType", "Content-\u{212A}ype", "\u{0130}Content-Type", "Contenț-Type",
                     "content-type\u{0301}", ""]
        for name in names {
            #expect(RedactionPolicy.isContentType(name) == (name.lowercased() == "content-type"), "\(name)")
        }
    }
}
