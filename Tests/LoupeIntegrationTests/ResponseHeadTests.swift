import HTTPTypes
@testable import LoupeAsyncHTTPClient
import NIOHTTP1
import Testing

/// AsyncHTTPClient's response head in swift-http-types' terms: names as the server spelled them, every field in
/// order (repeated ones too), names that are not valid tokens left out.
@Suite struct ResponseHeadTests {
    @Test func fieldsKeepTheServersSpellingOrderAndRepeats() {
        let headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("content-length", "2"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
            ("ETag", "\"v1\""), ("X-Request-Id", "42"), ("Bad Name", "left out"), ("Date", "Fri, 27 Nov 2026 17:00:00 GMT"),
        ])
        let head = AsyncHTTPClientTransport.makeHead(status: .created, headers: headers)
        #expect(head.status.code == 201)
        #expect(head.headerFields.map(\.name.rawName)
            == ["Content-Type", "content-length", "Set-Cookie", "Set-Cookie", "ETag", "X-Request-Id", "Date"])
        #expect(head.headerFields.map(\.name.canonicalName)
            == ["content-type", "content-length", "set-cookie", "set-cookie", "etag", "x-request-id", "date"])
        #expect(head.headerFields[.contentType] == "application/json")
        #expect(head.headerFields[.contentLength] == "2")
        #expect(head.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect(head.headerFields[.eTag] == "\"v1\"")
    }

    /// The shortcut for common names gives exactly what validating the same text gives, spelling included; other
    /// spellings of those names take the validating path.
    @Test(arguments: ["Content-Type", "Content-Length", "Date", "Server", "Connection", "Cache-Control", "ETag",
                      "Last-Modified", "Content-Encoding", "Vary"])
    func aKnownNameIsWhatValidatingItGives(name: String) throws {
        let known = try #require(AsyncHTTPClientTransport.knownName(name))
        let validated = try #require(HTTPField.Name(name))
        #expect(known == validated)
        #expect(known.rawName == validated.rawName)
        #expect(AsyncHTTPClientTransport.knownName(name.lowercased()) == nil)
        #expect(AsyncHTTPClientTransport.knownName(name.uppercased()) == nil)
    }
}
