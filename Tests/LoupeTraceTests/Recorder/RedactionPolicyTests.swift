import Foundation
import HTTPTypes
import LoupeTrace
import Testing

@Suite("RedactionPolicy")
struct RedactionPolicyTests {
    let marker = RedactionPolicy.marker

    @Test("default credential headers are redacted whatever their case; others are kept in order")
    func defaultHeaders() {
        let policy = RedactionPolicy()
        let headers = [
            TraceHeader(name: "authorization", value: "Bearer SECRET"),
            TraceHeader(name: "Accept", value: "application/json"),
            TraceHeader(name: "COOKIE", value: "session=abc"),
            TraceHeader(name: "Set-Cookie", value: "session=def"),
            TraceHeader(name: "Proxy-Authorization", value: "Basic Zm9v"),
        ]
        #expect(policy.redact(headers: headers) == [
            TraceHeader(name: "authorization", value: marker),
            TraceHeader(name: "Accept", value: "application/json"),
            TraceHeader(name: "COOKIE", value: marker),
            TraceHeader(name: "Set-Cookie", value: marker),
            TraceHeader(name: "Proxy-Authorization", value: marker),
        ])
    }

    @Test("extra header names are configurable, and HTTPFields keep their original names")
    func extraHeaders() {
        var policy = RedactionPolicy(headerNames: ["X-API-Key"])
        policy.headerNames.insert("X-Session")
        let fields: HTTPFields = [
            HTTPField.Name("x-api-key")!: "k-123", HTTPField.Name("X-Session")!: "s-1", .userAgent: "loupe",
        ]
        #expect(policy.redact(headers: fields) == [
            TraceHeader(name: "x-api-key", value: marker),
            TraceHeader(name: "X-Session", value: marker),
            TraceHeader(name: "User-Agent", value: "loupe"),
        ])
        #expect(RedactionPolicy.none.redact(headers: fields).map(\.value) == ["k-123", "s-1", "loupe"])
    }

    @Test("query items are redacted by name inside URLs; the rest of the URL is untouched")
    func queryItems() {
        let policy = RedactionPolicy(queryItemNames: ["access_token", "sig"])
        let url = "https://api.example.test/v1/items?page=2&ACCESS_TOKEN=abc%2Fdef&sig=x&sig=y&q=a%20b#top"
        #expect(policy.redact(url: url)
            == "https://api.example.test/v1/items?page=2&ACCESS_TOKEN=%5BREDACTED%5D&sig=%5BREDACTED%5D&sig=%5BREDACTED%5D&q=a%20b#top")
        #expect(policy.redact(url: "https://api.example.test/v1?page=2") == "https://api.example.test/v1?page=2")
        #expect(policy.redact(url: URL(string: "https://h.test/?sig=1")!) == "https://h.test/?sig=%5BREDACTED%5D")
    }

    @Test("encoded query names are decoded before matching; a query with nothing to redact comes back byte for byte")
    func encodedQueryNames() {
        let policy = RedactionPolicy(queryItemNames: ["access_token", "sig"])
        #expect(policy.redact(url: "https://h.test/?acc%65ss_token=1&s+ig=2&Sig=3&x&=v&&p=%41")
            == "https://h.test/?acc%65ss_token=%5BREDACTED%5D&s+ig=2&Sig=%5BREDACTED%5D&x&=v&&p=%41")
        let untouched = "https://h.test/a?b=1&&c&=d&e=%2B+&si%67n=1#f"
        #expect(policy.redact(url: untouched) == untouched)
    }

    @Test("a password inside the URL is redacted even with no query names configured")
    func urlPassword() {
        let redacted = RedactionPolicy().redact(url: "https://user:hunter2@api.example.test/x")
        #expect(redacted == "https://user:%5BREDACTED%5D@api.example.test/x")
        #expect(URLComponents(string: redacted)?.host == "api.example.test")
    }

    @Test("JSON fields are redacted at any depth and the result is still valid JSON")
    func jsonAtDepth() throws {
        let policy = RedactionPolicy(jsonFieldNames: ["password", "Token"])
        let body = Data(#"""
            {"user": "ada", "password": "p1", "nested": {"list": [{"token": {"value": "t1"}}, {"TOKEN": 5}], "keep": true}}
            """#.utf8)
        let redacted = policy.redact(body: body, contentType: "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: redacted) as? [String: Any])
        #expect(object["user"] as? String == "ada")
        #expect(object["password"] as? String == marker)
        let nested = try #require(object["nested"] as? [String: Any])
        let list = try #require(nested["list"] as? [[String: Any]])
        #expect(list[0]["token"] as? String == marker)
        #expect(list[1]["TOKEN"] as? String == marker)
        #expect(nested["keep"] as? Bool == true)
        #expect(!String(decoding: redacted, as: UTF8.self).contains("p1"))
    }

    @Test("JSON is recognised by its first byte, whatever the content type; only redacted values change")
    func jsonDetection() {
        let policy = RedactionPolicy(jsonFieldNames: ["secret"])
        let plain = Data(#"[{"secret": 1}]"#.utf8)
        #expect(policy.redact(body: plain, contentType: "text/plain") == Data(#"[{"secret": "[REDACTED]"}]"#.utf8))
        let untouched = Data("{ \"a\" :  1 }".utf8)
        #expect(policy.redact(body: untouched, contentType: "application/json") == untouched)
    }

    @Test("JSON cut short is still redacted as far as it goes; binary and plain text bodies are left alone")
    func nonJSONBodies() {
        let policy = RedactionPolicy(jsonFieldNames: ["password"])
        let broken = Data(#"{"password": "p1", "#.utf8)
        #expect(policy.redact(body: broken, contentType: "application/json") == Data(#"{"password": "[REDACTED]", "#.utf8))
        let cut = Data(#"{"a": [1, {"password": "hunter2-and-more"#.utf8)
        #expect(policy.redact(body: cut, contentType: nil) == Data(#"{"a": [1, {"password": "[REDACTED]""#.utf8))
        let binary = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0x7B, 0x22])
        #expect(policy.redact(body: binary, contentType: "image/png") == binary)
        let text = Data("password=p1 is not a form here".utf8)
        #expect(policy.redact(body: text, contentType: "text/plain") == text)
    }

    @Test("form bodies redact both query item and JSON field names")
    func formBodies() {
        let policy = RedactionPolicy(queryItemNames: ["client_secret"], jsonFieldNames: ["password"])
        let form = Data("user=ada&password=p%201&client_secret=s&grant_type=password".utf8)
        let redacted = policy.redact(body: form, contentType: "application/x-www-form-urlencoded; charset=utf-8")
        #expect(String(decoding: redacted, as: UTF8.self)
            == "user=ada&password=%5BREDACTED%5D&client_secret=%5BREDACTED%5D&grant_type=password")
    }
}
