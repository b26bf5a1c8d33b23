import AsyncHTTPClient
import HTTPTypes
@testable import LoupeAsyncHTTPClient
import NIOCore
import NIOHTTP1
import Testing

/// `RecordingHTTPClient` splits AsyncHTTPClient's URL string by hand (DECISIONS 153): the same parts the recorder
/// got from `URLComponents`, and never the userinfo.
@Suite struct RequestTargetSplitTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/ping", "http", "127.0.0.1:8080", "/ping"),
        ("https://api.example.test/v1/users?page=2&q=a%20b", "https", "api.example.test", "/v1/users?page=2&q=a%20b"),
        ("https://api.example.test", "https", "api.example.test", "/"),
        ("https://api.example.test?x=1", "https", "api.example.test", "/?x=1"),
        ("https://api.example.test/a#frag", "https", "api.example.test", "/a"),
        ("https://ada:hunter2@api.example.test:8443/me", "https", "api.example.test:8443", "/me"),
        ("http://[::1]:8080/ping", "http", "[::1]:8080", "/ping"),
        ("http+unix://%2Ftmp%2Fapi.sock/ping", "http+unix", "%2Ftmp%2Fapi.sock", "/ping"),
    ])
    func theTargetsPartsAreSplitAtTheirDelimiters(url: String, scheme: String, authority: String, path: String) {
        let target = RecordingHTTPClient.target(of: url)
        #expect(target.scheme == scheme && target.authority == authority && target.path == path)
    }

    @Test func somethingThatIsNotSchemeSlashSlashIsLeftToURLComponents() {
        let target = RecordingHTTPClient.target(of: "/relative/path?x=1")
        #expect(target.scheme == nil && target.authority == nil && target.path == "/relative/path?x=1")
        #expect(!RecordingHTTPClient.head(method: .GET, url: "https://u:secret@h.test/p", headers: [:])
            .authority!.contains("secret"))
    }

    /// A small body read for the recorder is handed on as one buffer (DECISIONS 155), as `.bytes(_:)` hands it on:
    /// the same bytes once, then the end, an empty body included.
    @Test(arguments: ["", #"{"ok":true}"#])
    func aBodyReadForTheRecorderReachesTheAppAsItsOneBuffer(text: String) async throws {
        var expected: [ByteBuffer] = []
        for try await buffer in HTTPClientResponse.Body.bytes(ByteBuffer(string: text)) { expected.append(buffer) }
        var got: [ByteBuffer] = []
        for try await buffer in HTTPClientResponse.Body.stream(OneBuffer(buffer: ByteBuffer(string: text))) { got.append(buffer) }
        #expect(got == expected && got.count == 1)
        var iterator = OneBuffer(buffer: ByteBuffer(string: text)).makeAsyncIterator()
        #expect(try await iterator.next() == ByteBuffer(string: text))
        #expect(try await iterator.next() == nil)
    }
}
