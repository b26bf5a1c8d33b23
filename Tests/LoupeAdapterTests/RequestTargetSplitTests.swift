@testable import LoupeAsyncHTTPClient
import Testing

/// `RecordingHTTPClient` splits AsyncHTTPClient's URL string by hand (DECISIONS 323): the same parts the recorder
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
}
