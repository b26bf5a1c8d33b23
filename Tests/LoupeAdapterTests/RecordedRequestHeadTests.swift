import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Loupe
@testable import LoupeAsyncHTTPClient
import LoupeURLSession
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession adapters split a request's URL by hand (`AdapterRequestHead`, DECISIONS 153) instead of letting
/// HTTPTypesFoundation parse it again: the head must be the one `URLRequest.httpRequest` makes, for odd URLs too.
@Suite struct RecordedRequestHeadTests {
    static let urls = [
        "http://127.0.0.1:8080/ping",
        "https://api.example.test/v1/users?page=2&q=a%20b",
        "https://api.example.test",
        "https://api.example.test?x=1",
        "https://api.example.test/?",
        "https://api.example.test/a?b=c#frag",
        "https://api.example.test#frag",
        "https://api.example.test/a#frag?not-a-query",
        "https://ada:hunter2@api.example.test:8443/me",
        "https://ada@api.example.test/me?token=1",
        "https://ada:p%40ss@api.example.test/at/after@sign",
        "http://[::1]:8080/ping",
        "http://[::1]/ping",
        "http://[2001:db8::7]:8443/v1?x=[y]",
        "http://api.example.test:8080",
        "HTTP://API.Example.TEST/Mixed/Case",
        "http://api.example.test/caf%C3%A9/%2F?x=%26&y=%E2%82%AC",
        "http://api.example.test//double//slashes/",
        "http://api.example.test/p;params?q",
        "http://api.example.test/a b",
        "http://xn--bcher-kva.example/",
        "ws://api.example.test/socket",
        "wss://api.example.test:8443/socket?x=1",
    ]

    @Test(arguments: urls)
    func theHeadIsTheOneHTTPTypesFoundationMakes(url: String) throws {
        let url = try #require(URL(string: url))
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        request.setValue("caf\u{E9}", forHTTPHeaderField: "X-Latin1")
        try expectSameHead(request)
        request.httpMethod = "POST"
        try expectSameHead(request)
    }

    @Test func aURLRelativeToABaseIsResolvedAsHTTPTypesFoundationResolvesIt() throws {
        let base = try #require(URL(string: "https://api.example.test:8443/v1/"))
        try expectSameHead(URLRequest(url: try #require(URL(string: "users/2?x=1", relativeTo: base))))
        try expectSameHead(URLRequest(url: try #require(URL(string: "/root?y", relativeTo: base))))
    }

    @Test func noHeaderFieldsAndAMethodHTTPTypesRefusesAreTheSameToo() throws {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:8080/ping")))
        try expectSameHead(request)
        request.httpMethod = "BAD METHOD"
        #expect(request.recordedHead == nil && request.httpRequest == nil)
    }

    /// The same pseudo-header fields and header fields, each name spelt the same.
    private func expectSameHead(_ request: URLRequest, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try #require(request.httpRequest, sourceLocation: sourceLocation)
        let head = try #require(request.recordedHead, sourceLocation: sourceLocation)
        #expect(head == expected, "\(request.url!.absoluteString)", sourceLocation: sourceLocation)
        #expect(head.pseudoHeaderFields == expected.pseudoHeaderFields, sourceLocation: sourceLocation)
        #expect(Set(head.headerFields.map { "\($0.name.rawName)=\($0.value)" })
            == Set(expected.headerFields.map { "\($0.name.rawName)=\($0.value)" }), sourceLocation: sourceLocation)
    }
}

/// The split and the operation name the adapters share (`AdapterRequestHead`, DECISIONS 153).
@Suite struct AdapterRequestHeadTests {
    @Test(arguments: [
        "/relative/path?next=http://elsewhere.test/x",
        "1http://h.test/p",
        "://h.test/p",
        "ht tp://h.test/p",
        "mailto:ada@example.test",
    ])
    func whatIsNotSchemeSlashSlashIsNotSplit(url: String) {
        #expect(AdapterRequestHead.split(url) == nil)
    }

    @Test func aRelativeReferenceWithAURLInItsQueryIsLeftToURLComponentsByTheAsyncHTTPClientAdapter() {
        // Before the scheme was checked, everything before the query's `://` was taken for a scheme.
        let target = RecordingHTTPClient.target(of: "/p?next=http://elsewhere.test/x")
        #expect(target.scheme == nil && target.authority == nil && target.path == "/p?next=http://elsewhere.test/x")
    }

    @Test(arguments: [
        "/ping", "/users/1?x=2", "/a??b", "/", "/caf%C3%A9?q", "*", "?x=1", "??a?b", "?", "",
    ])
    func theOperationNameIsClientsOwn(path: String) {
        for method in [HTTPRequest.Method.get, .post, HTTPRequest.Method("PROPFIND")!] {
            let request = HTTPRequest(method: method, scheme: "https", authority: "h.test", path: path)
            #expect(AdapterRequestHead.operationName(request) == Client.operationName(request))
        }
        let noPath = HTTPRequest(method: .get, scheme: "https", authority: "h.test", path: nil)
        #expect(AdapterRequestHead.operationName(noPath) == Client.operationName(noPath))
    }
}
