import Foundation
import Loupe
import LoupeTrace
import Testing

@Suite("Redaction by value")
struct RedactionByValueTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// An exchange whose request carries `headers` and `body`, with `echo` as the response body.
    func exchange(url: String = "https://api.example.test/v1/echo", headers: [TraceHeader], body: String? = nil,
                  contentType: String = "application/json", echo: Data, responseHeaders: [TraceHeader] = []) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: "POST /v1/echo", method: "POST", url: url, startedAt: Self.start, outcome: .success,
            status: 200, error: nil,
            requestHeaders: headers + [TraceHeader(name: "Content-Type", value: contentType)],
            requestBody: body.map { TraceBody(data: Data($0.utf8), size: $0.utf8.count, isTruncated: false) },
            responseHeaders: responseHeaders,
            responseBody: TraceBody(data: echo, size: echo.count, isTruncated: false),
            attempts: [TraceAttempt(number: 1, startedAt: Self.start)])
    }

    /// Every stored string and byte of the exchange, as one blob to search.
    func everything(_ exchange: TraceExchange) -> Data {
        var texts = [exchange.url, exchange.operation, exchange.error ?? ""]
        texts += (exchange.requestHeaders + exchange.responseHeaders).map { $0.name + ": " + $0.value }
        for attempt in exchange.attempts { texts += [attempt.error ?? ""] + attempt.notes.values }
        for event in exchange.events { texts += [event.message] + event.attributes.values }
        var blob = Data(texts.joined(separator: "\n").utf8)
        blob.append(exchange.requestBody?.data ?? Data())
        blob.append(exchange.responseBody?.data ?? Data())
        return blob
    }

    @Test("a bearer token echoed in the response body, headers and error text is scrubbed in every form",
          arguments: ["raw", "json", "percent", "percent-lower", "form", "base64", "base64url", "base64-inside"])
    func bearerEchoed(form: String) throws {
        let token = "tok/en+Value=9xK~ü"
        let encoded: String
        switch form {
        case "raw": encoded = token
        case "json": encoded = #"tok\/en+Value=9xK~\u00fc"#
        case "percent": encoded = "tok%2Fen%2BValue%3D9xK~%C3%BC"
        case "percent-lower": encoded = "tok%2fen%2bValue%3d9xK~%c3%bc"
        case "form": encoded = "tok%2Fen%2BValue%3D9xK%7E%C3%BC"
        case "base64": encoded = Data(token.utf8).base64EncodedString()
        case "base64url": encoded = Data(token.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .trimmingCharacters(in: ["="])
        default: encoded = Data(("prefix: " + token + " suffix").utf8).base64EncodedString()
        }
        var trace = exchange(
            headers: [TraceHeader(name: "Authorization", value: "Bearer \(token)")],
            echo: Data(#"{"seen":"\#(encoded)"}"#.utf8),
            responseHeaders: [TraceHeader(name: "X-Echo", value: encoded)])
        trace.error = "server said \(encoded)"
        trace.events = [TraceEvent(kind: "note", at: Self.start, message: "m \(encoded)", attributes: ["a": encoded])]
        trace.attempts[0].notes = ["n": encoded]
        let redacted = RedactionPolicy().redact(exchange: trace)
        let blob = everything(redacted)
        let text = String(decoding: blob, as: UTF8.self)
        #expect(blob.range(of: Data(token.utf8)) == nil)
        if form == "base64-inside" {
            // Inside a longer blob only the characters that depend on the token alone can be found: here the
            // token starts 8 bytes in, so those are the characters from bit 64 to bit 64 + 8 × its length.
            let whole = Array(encoded)
            let middle = String(whole[((64 + 5) / 6)..<((64 + 8 * token.utf8.count) / 6)])
            #expect(!text.contains(middle))
            #expect(!text.contains(encoded))
        } else {
            #expect(!text.contains(encoded), "form \(form) survived")
        }
        #expect(redacted.responseHeaders.first?.value.contains(RedactionPolicy.marker) == true)
        #expect(redacted.error?.hasPrefix("server said ") == true)
    }

    @Test("Basic credentials: the base64, the decoded user:password and the password are all scrubbed")
    func basic() {
        let pair = "ada:correct-horse-battery"
        let base64 = Data(pair.utf8).base64EncodedString()
        let echo = Data(#"{"user":"ada","authorization":"Basic \#(base64)","basic":"\#(pair)","pw":"correct-horse-battery"}"#.utf8)
        let redacted = RedactionPolicy().redact(
            exchange: exchange(headers: [TraceHeader(name: "Authorization", value: "Basic \(base64)")], echo: echo))
        let text = String(decoding: everything(redacted), as: UTF8.self)
        #expect(!text.contains(base64) && !text.contains(pair) && !text.contains("correct-horse-battery"))
        #expect(text.contains("ada"))  // the user name alone is not a secret
    }

    @Test("values redacted by name in the query, headers and body are scrubbed from the URL path, headers and bodies")
    func namedValuesEverywhere() {
        let trace = exchange(
            url: "https://api.example.test/v1/keys/KEY-abcdef123/echo?api_key=KEY-abcdef123&page=2",
            headers: [TraceHeader(name: "X-Api-Key", value: "HDR-9f8e7d6c"),
                      TraceHeader(name: "Cookie", value: "theme=dark; session=SESS-556677"),
                      TraceHeader(name: "X-Trace-Note", value: "copied HDR-9f8e7d6c and PW-hunter22")],
            body: #"{"user":"ada","password":"PW-hunter22"}"#,
            echo: Data(#"{"h":"HDR-9f8e7d6c","s":"session=SESS-556677","k":"KEY-abcdef123","p":"PW-hunter22"}"#.utf8),
            responseHeaders: [TraceHeader(name: "Set-Cookie", value: "next=NEXT-123456; Path=/"),
                              TraceHeader(name: "X-Echo-Key", value: "KEY-abcdef123")])
        var withEcho = trace
        withEcho.responseBody?.data.append(Data(" NEXT-123456".utf8))
        let redacted = RedactionPolicy().redact(exchange: withEcho)
        let text = String(decoding: everything(redacted), as: UTF8.self)
        for secret in ["KEY-abcdef123", "HDR-9f8e7d6c", "SESS-556677", "PW-hunter22", "NEXT-123456"] {
            #expect(!text.contains(secret), "\(secret) survived")
        }
        #expect(redacted.url == "https://api.example.test/v1/keys/%5BREDACTED%5D/echo?api_key=%5BREDACTED%5D&page=2")
        #expect(redacted.requestHeaders[2] == TraceHeader(name: "X-Trace-Note", value: "copied [REDACTED] and [REDACTED]"))
        #expect(text.contains(#""user":"ada""#) && text.contains("page=2"))
    }

    @Test("credentials from earlier attempts (a refreshed token) are scrubbed too")
    func earlierAttempts() {
        let trace = exchange(
            headers: [TraceHeader(name: "Authorization", value: "Bearer NEW-token-2222")],
            echo: Data("old was OLD-token-1111".utf8))
        let redacted = RedactionPolicy().redact(
            exchange: trace, alsoSent: [[TraceHeader(name: "Authorization", value: "Bearer OLD-token-1111")]])
        #expect(String(decoding: redacted.responseBody!.data, as: UTF8.self) == "old was [REDACTED]")
    }

    @Test("values shorter than the minimum are redacted by name only; innocent text is untouched")
    func minimumLength() {
        let trace = exchange(
            url: "https://api.example.test/v1/echo?token=abc&sig=abcdef",
            headers: [], echo: Data("abc is everywhere; abcdef is not".utf8))
        let redacted = RedactionPolicy().redact(exchange: trace)
        #expect(String(decoding: redacted.responseBody!.data, as: UTF8.self) == "abc is everywhere; [REDACTED] is not")
        var strict = RedactionPolicy()
        strict.minimumScrubLength = 3
        #expect(String(decoding: strict.redact(exchange: trace).responseBody!.data, as: UTF8.self)
            == "[REDACTED] is everywhere; [REDACTED] is not")
    }

    @Test("bodies that are not UTF-8 are scrubbed as bytes")
    func binaryBodies() {
        var echo = Data([0xFF, 0x00, 0xFE])
        echo.append(Data("BIN-secret-77".utf8))
        echo.append(contentsOf: [0xC3, 0x28, 0x00])
        let trace = exchange(headers: [TraceHeader(name: "X-Auth-Token", value: "BIN-secret-77")], echo: echo)
        var expected = Data([0xFF, 0x00, 0xFE])
        expected.append(Data("[REDACTED]".utf8))
        expected.append(contentsOf: [0xC3, 0x28, 0x00])
        #expect(RedactionPolicy().redact(exchange: trace).responseBody?.data == expected)
    }

    @Test("a policy's own secret values are scrubbed from every exchange; redacting again changes nothing")
    func secretValuesAndStability() {
        var policy = RedactionPolicy()
        policy.secretValues = ["APP-KEY-0042"]
        let trace = exchange(
            url: "https://api.example.test/v1/echo?q=APP-KEY-0042", headers: [], echo: Data("APP-KEY-0042".utf8))
        let once = policy.redact(exchange: trace)
        #expect(once.url == "https://api.example.test/v1/echo?q=%5BREDACTED%5D")
        #expect(once.responseBody?.data == Data("[REDACTED]".utf8))
        #expect(policy.redact(exchange: once) == once)
        #expect(RedactionPolicy.none.redact(exchange: trace) == trace)
    }

    @Test("no secrets: bodies are returned as they were, without a copy")
    func noSecretsNoCopy() {
        let big = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
        let trace = exchange(headers: [], echo: big)
        let redacted = RedactionPolicy().redact(exchange: trace)
        #expect(redacted == trace)
        let original = trace.responseBody!.data.withUnsafeBytes { $0.baseAddress }
        let after = redacted.responseBody!.data.withUnsafeBytes { $0.baseAddress }
        #expect(original == after)
    }
}
