import Foundation
import Loupe
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("Secret collector")
struct SecretCollectorTests {
    @Test("a collector that keeps nothing skips the search; any other finds the credentials inside a header")
    func keepsNothing() {
        var ignoring = SecretCollector(minimumLength: .max)
        ignoring.addHeader(name: "Authorization", value: "Basic dXNlcjpzM2NyZXQtcGFzcw==")
        ignoring.addHeader(name: "Cookie", value: "session=abcdef123")
        ignoring.addEncoded("abc%20def")
        #expect(ignoring.keepsNothing && ignoring.isEmpty)

        var collecting = SecretCollector(minimumLength: 4)
        collecting.addHeader(name: "Authorization", value: "Basic dXNlcjpzM2NyZXQtcGFzcw==")
        collecting.addHeader(name: "Cookie", value: "session=abcdef123")
        #expect(!collecting.keepsNothing)
        #expect(collecting.values.isSuperset(of: ["user:s3cret-pass", "s3cret-pass", "abcdef123"]))
    }

    @Test("the header cache gives each collector what parsing gives, under that collector's own limits")
    func headerCacheKeepsEachCollectorsLimits() {
        let headers = [
            ("Authorization", "Bearer cache-test-token-0001"), ("Authorization", "Basic dXNlcjpzM2NyZXQtcGFzcw=="),
            ("Cookie", "session=abcdef123; theme=dark"), ("Set-Cookie", "sid=s3ss10n%2Bid; Path=/"),
            ("Authorization", #"Digest username="u", response="6629fae49393a05397450978507c4ef1", uri="/p""#),
            ("X-Api-Key", "  \"quoted-key-value\"  "), ("Authorization", "Bearer [REDACTED]"),
        ]
        for minimumLength in [1, 4, 12, 40] {
            // Twice: the first use may parse, the second is served by the cache; both must keep the same values.
            for _ in 0..<2 {
                var cached = SecretCollector(minimumLength: minimumLength)
                var parsed = SecretCollector(minimumLength: minimumLength)
                for (name, value) in headers {
                    cached.addHeader(name: name, value: value)
                    for candidate in SecretCollector.headerCandidates(name: name, value: value) { parsed.add(candidate) }
                }
                #expect(cached.values == parsed.values, "minimum \(minimumLength)")
            }
        }
        var collector = SecretCollector(minimumLength: 4)
        collector.addHeader(name: "Authorization", value: "Digest username=\"u\", response=\"6629fae4\", uri=\"/p\"")
        collector.addHeader(name: "Authorization", value: "Basic dXNlcjpzM2NyZXQtcGFzcw==")
        #expect(collector.values.isSuperset(of: ["6629fae4", "user:s3cret-pass", "s3cret-pass"]))
        #expect(!collector.values.contains("/p"))
    }

    @Test("a token that changes between exchanges is scrubbed by its new value, not only by the cached old one")
    func changedTokenIsStillScrubbed() {
        let policy = RedactionPolicy()
        for token in ["first-token-aaaaaaaa", "second-token-bbbbbbb", "first-token-aaaaaaaa", "third-token-ccccccc"] {
            let start = Date(timeIntervalSince1970: 1_700_000_000)
            let echo = Data(#"{"echo":"\#(token)","b64":"\#(Data(token.utf8).base64EncodedString())"}"#.utf8)
            let exchange = TraceExchange(
                id: UUID(), operation: "GET /echo", method: "GET", url: "https://api.example.test/echo", startedAt: start,
                outcome: .success, status: 200, error: "saw \(token)",
                requestHeaders: [TraceHeader(name: "Authorization", value: "Bearer \(token)")], requestBody: nil,
                responseHeaders: [TraceHeader(name: "X-Echo", value: token)],
                responseBody: TraceBody(data: echo, size: echo.count, isTruncated: false),
                attempts: [TraceAttempt(number: 1, startedAt: start)])
            let redacted = policy.redact(exchange: exchange)
            let texts = [redacted.error ?? "", redacted.responseHeaders[0].value,
                         String(decoding: redacted.responseBody!.data, as: UTF8.self),
                         redacted.requestHeaders[0].value]
            for text in texts {
                #expect(!text.contains(token) && !text.contains(Data(token.utf8).base64EncodedString()), "\(text)")
            }
        }
    }

    @Test("the header cache is bounded: many distinct credentials keep at most its capacity, long ones none")
    func headerCacheIsBounded() {
        for index in 0..<(HeaderSecretsCache.capacity * 3) {
            var collector = SecretCollector(minimumLength: 4)
            collector.addHeader(name: "Authorization", value: "Bearer bounded-token-\(index)")
            #expect(collector.values.contains("bounded-token-\(index)"))
            #expect(HeaderSecretsCache.count <= HeaderSecretsCache.capacity)
        }
        let long = String(repeating: "k", count: HeaderSecretsCache.longestValue + 1)
        var collector = SecretCollector(minimumLength: 4)
        collector.addHeader(name: "Authorization", value: "Bearer \(long)")
        #expect(collector.values.contains(long))
        #expect(HeaderSecretsCache.count <= HeaderSecretsCache.capacity)
    }

    @Test("trimming matches Foundation's whitespacesAndNewlines (plus quotes) on random text")
    func trimmingMatchesFoundation() {
        // Every White_Space scalar, quotes, and ordinary text (a combining mark too, next to a space).
        let alphabet: [Unicode.Scalar] = [
            " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{200A}", "\u{2028}",
            "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{200B}", "\u{FEFF}", "\"", "'", "a", "Z", "=", "\u{301}", "é", "😀",
        ]
        // U+200B is in Foundation's set on Linux; added for Apple's, where it is not.
        let space = CharacterSet.whitespacesAndNewlines.union(["\u{200B}"])
        let withQuotes = space.union(["\""])
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...8, using: &generator) { text.append(alphabet.randomElement(using: &generator)!) }
            let string = String(text)
            #expect(SecretCollector.trimmed(string, quotes: true) == string.trimmingCharacters(in: withQuotes), "\(string.debugDescription)")
            #expect(SecretCollector.trimmed(string, quotes: false) == string.trimmingCharacters(in: space))
        }
    }

    @Test("a value is part of a marker exactly when Foundation finds it there")
    func partOfAMarker() {
        let marker = RedactionPolicy.marker
        let pieces = ["REDACTED", "[REDACTED]", "DACT", "[", "redacted", "[REDACTED]]", "", "REDACTEDX", "%5BREDACTED"]
        for piece in pieces {
            #expect(SecretCollector.isPart(piece, of: marker) == marker.contains(piece), "\(piece)")
        }
        #expect(SecretCollector.isPart("BREDACTED%5D", of: RedactionPolicy.urlMarker))
    }

    @Test("the credentials inside every kind of authorization header are found")
    func credentialsInAuthorizationHeaders() {
        var collector = SecretCollector(minimumLength: 6)
        collector.addHeader(name: "Authorization", value: "  Bearer   tok-123456  ")
        collector.addHeader(name: "Proxy-Authorization", value: "BASIC dXNlcjpzM2NyZXQtcGFzcw==")
        collector.addHeader(name: "Authorization", value: #"Digest username="u", response="6629fae49393a05397450978507c4ef1", uri="/x""#)
        collector.addHeader(name: "Authorization", value: "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830, Signature=5d672d79c15b13162d9279b0855cfba6")
        collector.addHeader(name: "X-Api-Key", value: "\"quoted-key-value\"")
        #expect(collector.values.isSuperset(of: [
            "Bearer   tok-123456", "tok-123456", "user:s3cret-pass", "s3cret-pass", "6629fae49393a05397450978507c4ef1",
            "AKIDEXAMPLE/20150830", "5d672d79c15b13162d9279b0855cfba6", "quoted-key-value",
        ]))
        #expect(!collector.values.contains("/x"))
        #expect(!collector.values.contains { $0.hasPrefix(" ") || $0.hasSuffix(" ") })
    }

    @Test("a first header's candidates, shared from the cache or kept one by one, give the same list and budget (DECISIONS 53)")
    func firstHeaderSharesTheCachesList() {
        var random = SeededGenerator(seed: 492)
        let pieces = ["tok", "token-abc", "Bearer", "Basic", " ", "; ", "=", "dXNlcjpzM2NyZXQtcGFzcw==", "\"", "same",
                      "session=same", "a=same", "[REDACTED]", "x"]
        let names = ["Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Proxy-Authorization"]
        for _ in 0..<3_000 {
            let name = names.randomElement(using: &random)!
            let value = (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let minimumLength = [1, 3, 6, 12].randomElement(using: &random)!
            let before = Bool.random(using: &random) ? ["earlier-value"] : []
            var shared = SecretCollector(minimumLength: minimumLength)
            var reference = SecretCollector(minimumLength: minimumLength)
            for earlier in before { shared.add(earlier); reference.add(earlier) }
            shared.addHeader(name: name, value: value)
            if value != RedactionPolicy.marker {
                for candidate in SecretCollector.headerCandidates(name: name, value: value) { reference.add(candidate) }
            }
            #expect(shared.list == reference.list, "\(name): \(value)")
            // The bytes counted against the budget are the same: a value filling it exactly is kept by both, one
            // byte more by neither.
            let used = reference.list.reduce(0) { $0 + $1.utf8.count }
            let filler = String(repeating: "f", count: SecretCollector.byteBudget - used)
            var (sharedFull, referenceFull) = (shared, reference)
            sharedFull.add(filler)
            referenceFull.add(filler)
            #expect(sharedFull.list == referenceFull.list)
            shared.add(filler + "f")
            reference.add(filler + "f")
            #expect(shared.list == reference.list)
        }
    }
}

@Suite("URL redaction without parsing")
struct URLRedactionShortcutTests {
    @Test("the shortcut for URLs with nothing to redact gives what URLComponents gives, secrets included")
    func shortcutMatchesParsing() {
        let pieces = [
            "https://api.example.com", "http://127.0.0.1:8080", "https://user:pa%20ss@host.example", "https://h@x.example",
        ]
        let paths = ["", "/", "/ping", "/a%20b/c", "/odd path", "/@at"]
        let queries = [
            "", "?", "?n=1", "?token=abcdef123", "?a=1&api_key=s3cr3t-v4lue&b=2", "?api%5Fkey=zzzzzz9", "?x=1&&y",
            "?password=%5BREDACTED%5D", "?q=a+b&Token=t0k3n-val", "?sig", "?n=1#frag", "?key=1#token=inside-fragment",
        ]
        let fragments = ["", "#top", "#a?token=b"]
        let policies = [RedactionPolicy(), RedactionPolicy(includeDefaults: false)]
        for policy in policies {
            for piece in pieces {
                for path in paths {
                    for query in queries {
                        for fragment in fragments {
                            let url = piece + path + query + fragment
                            var fast = SecretCollector(minimumLength: 4)
                            var parsed = SecretCollector(minimumLength: 4)
                            #expect(policy.redact(url: url, collecting: &fast) == policy.redactParsing(url: url, collecting: &parsed), "\(url)")
                            #expect(fast.values == parsed.values, "\(url)")
                        }
                    }
                }
            }
        }
    }

    @Test("URLs with `@`, `?`, `#` and `=` anywhere, found with memchr: what URLComponents gives (DECISIONS 53)")
    func bytesFoundWithMemchrMatchParsing() {
        var random = SeededGenerator(seed: 494)
        let pieces = ["https://", "api.example.com", "/p", "@", "?", "#", "=", "&", "token=s3cr3t-val", "a=1", "x", "%40",
                      "access_token=abcdefgh1", ":", "user:pw@"]
        for policy in [RedactionPolicy(), RedactionPolicy(includeDefaults: false)] {
            for _ in 0..<3_000 {
                let url = (0..<Int.random(in: 0...7, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
                var fast = SecretCollector(minimumLength: 4)
                var parsed = SecretCollector(minimumLength: 4)
                #expect(policy.redact(url: url, collecting: &fast) == policy.redactParsing(url: url, collecting: &parsed), "\(url)")
                #expect(fast.values == parsed.values, "\(url)")
            }
        }
    }

}
