import Synchronization
import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct ClientTests {
    @Test func buildsURLHeadersAndDecodes() async throws {
        let seen = Recorded<HTTPRequest>()
        let client = makeClient(MockTransport { request, _, _ in
            seen.append(request)
            return RawResponse(status: .ok, body: Data(#"{"id":7,"name":"Ada"}"#.utf8))
        })
        let user = try await client.send(GetUser(id: 7))
        #expect(user == User(id: 7, name: "Ada"))
        let request = try #require(seen.values.first)
        #expect(request.url?.absoluteString == "https://api.example.com/v1/users/7?fields=id%20name%26more")
        #expect(request.headerFields[.accept] == "application/json", "endpoint header wins over the default")
        #expect(request.headerFields[.userAgent] == "loupe-tests")
    }

    @Test func encodesJSONBodyWithContentType() async throws {
        let seen = Recorded<(HTTPRequest, Data)>()
        let client = makeClient(MockTransport { request, body, _ in
            let data = try await body?.collect() ?? Data()
            seen.append((request, data))
            return RawResponse(status: .created, body: data)
        })
        let created = try await client.send(CreateUser(user: User(id: 1, name: "Grace")))
        #expect(created == User(id: 1, name: "Grace"))
        let (request, data) = try #require(seen.values.first)
        #expect(request.method == .post)
        #expect(request.url?.absoluteString == "https://api.example.com/v1/users")
        #expect(request.headerFields[.contentType] == "application/json")
        #expect(try JSONDecoder().decode(User.self, from: data) == User(id: 1, name: "Grace"))
    }

    @Test func encodesFormBodyAndDecodesString() async throws {
        let client = makeClient(MockTransport { request, body, _ in
            #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
            return RawResponse(status: .ok, body: try await body?.collect() ?? Data())
        })
        let echoed = try await client.send(Login())
        #expect(echoed == "user=ada+lovelace&pw=a%26b%3Dc%2F%C3%A9")
    }

    @Test func emptyResponseIgnoresBody() async throws {
        let client = makeClient(CannedTransport(RawResponse(status: .noContent)))
        _ = try await client.send(Ping())
    }

    @Test func responseCarriesMetadata() async throws {
        let client = makeClient(CannedTransport(RawResponse(
            status: .ok, headerFields: [.eTag: "\"v1\""], body: Data(#"{"id":1,"name":"A"}"#.utf8))))
        let response = try await client.response(GetUser(id: 1))
        #expect(response.status == .ok)
        #expect(response.headerFields[.eTag] == "\"v1\"")
        #expect(response.attempts.count == 1)
        #expect(response.attempts[0].status == 200)
        #expect(response.attempts[0].timings.end != nil)
        #expect(response.request.method == .get)
    }

    @Test func executeReturnsAnyStatusWithoutThrowing() async throws {
        let client = makeClient(CannedTransport(RawResponse(status: .internalServerError, body: Data("boom".utf8))))
        let response = try await client.execute(HTTPRequest(method: .get, url: URL(string: "http://x.test/a")!))
        #expect(response.status.code == 500)
        #expect(response.value == Data("boom".utf8))
    }
}


@Suite struct RequestBuildingTests {
    struct Search: Endpoint {
        typealias Response = Data
        var path: String { "/search/caf\u{e9} bar" }
        var query: [URLQueryItem] {
            [URLQueryItem(name: "q", value: "a+b=c&d#e"), URLQueryItem(name: "flag", value: nil), URLQueryItem(name: "ünï", value: "✓")]
        }
    }

    @Test func pathAndQueryAreEncodedAgainstTheBase() async throws {
        let seen = Recorded<HTTPRequest>()
        let client = makeClient(MockTransport { request, _, _ in
            seen.append(request)
            return RawResponse(status: .ok)
        }, base: "http://127.0.0.1:8080/api/?key=1")
        _ = try await client.send(Search())
        let request = try #require(seen.values.first)
        #expect(request.scheme == "http")
        #expect(request.authority == "127.0.0.1:8080")
        #expect(request.path == "/api/search/caf%C3%A9%20bar?key=1&q=a%2Bb%3Dc%26d%23e&flag&%C3%BCn%C3%AF=%E2%9C%93")
        let decoded = URLComponents(string: request.url!.absoluteString)?.queryItems
        #expect(decoded?.first { $0.name == "q" }?.value == "a+b=c&d#e")
    }
}
