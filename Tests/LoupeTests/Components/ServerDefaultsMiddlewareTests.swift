import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct ServerDefaultsMiddlewareTests {
    static let apiKey = HTTPField.Name("X-Api-Key")!
    static let production = ServerEnvironment(
        name: "production", baseURL: URL(string: "https://api.example.com/v1")!, defaultHeaders: [apiKey: "prod-key"])
    static let staging = ServerEnvironment(
        name: "staging", baseURL: URL(string: "https://staging.example.com/api/v1/")!,
        defaultHeaders: [apiKey: "staging-key", .acceptLanguage: "en"])
    static let local = ServerEnvironment(name: "local", baseURL: URL(string: "http://127.0.0.1:8080")!)

    /// Sends `request` through the middleware and returns what reached the transport.
    func sent(_ request: HTTPRequest, through middleware: ServerDefaultsMiddleware, observer: InMemoryClientObserver = .init()) async throws -> HTTPRequest {
        let seen = Recorded<HTTPRequest>()
        let client = makeComponentsClient(MockTransport { request, _, _ in
            seen.append(request)
            return RawResponse(status: .noContent)
        }, middlewares: [middleware], observer: observer)
        _ = try await client.execute(request)
        return try #require(seen.values.first)
    }

    @Test func movesRequestsUnderTheBaseToTheEnvironment() async throws {
        let observer = InMemoryClientObserver()
        let middleware = ServerDefaultsMiddleware(environment: Self.staging, replacing: Self.production.baseURL)
        let request = try await sent(get("https://api.example.com/v1/users/7?fields=id"), through: middleware, observer: observer)
        #expect(request.url?.absoluteString == "https://staging.example.com/api/v1/users/7?fields=id")
        #expect(request.headerFields[Self.apiKey] == "staging-key")
        #expect(request.headerFields[.acceptLanguage] == "en")
        #expect(observer.startedAnnotations.first?.extra["environment"] == "staging")
    }

    @Test func explicitHeadersWin() async throws {
        let middleware = ServerDefaultsMiddleware(environment: Self.staging, replacing: Self.production.baseURL)
        let request = try await sent(get("https://api.example.com/v1/me", headers: [Self.apiKey: "mine"]), through: middleware)
        #expect(request.headerFields[Self.apiKey] == "mine")
        #expect(request.headerFields[.acceptLanguage] == "en")
    }

    @Test func requestsElsewhereAreNotTouchedAndGetNoDefaults() async throws {
        let middleware = ServerDefaultsMiddleware(environment: Self.staging, replacing: Self.production.baseURL)
        for url in ["https://cdn.other.net/v1/logo.png", "https://api.example.com/v10/users", "http://api.example.com/v1/x"] {
            let request = try await sent(get(url), through: middleware)
            #expect(request.url?.absoluteString == url)
            #expect(request.headerFields[Self.apiKey] == nil)
        }
    }

    @Test func theBaseItselfAndItsQueryMoveToo() async throws {
        let middleware = ServerDefaultsMiddleware(environment: Self.local, replacing: Self.production.baseURL)
        #expect(try await sent(get("https://api.example.com/v1"), through: middleware).url?.absoluteString == "http://127.0.0.1:8080/")
        #expect(try await sent(get("https://api.example.com/v1?q=1"), through: middleware).url?.absoluteString == "http://127.0.0.1:8080/?q=1")
    }

    @Test func withoutABaseEveryRequestMovesAndGainsThePrefix() async throws {
        let middleware = ServerDefaultsMiddleware(environment: Self.staging)
        let request = try await sent(get("http://placeholder.invalid/users?id=1"), through: middleware)
        #expect(request.url?.absoluteString == "https://staging.example.com/api/v1/users?id=1")
    }

    @Test func switchingEnvironmentsMovesLaterRequests() async throws {
        let environments = ServerEnvironmentSwitch([Self.production, Self.staging], initial: Self.production)
        let middleware = ServerDefaultsMiddleware(environments, replacing: Self.production.baseURL)
        #expect(try await sent(get("https://api.example.com/v1/a"), through: middleware).authority == "api.example.com")
        try environments.select("staging")
        #expect(environments.current == Self.staging)
        #expect(try await sent(get("https://api.example.com/v1/a"), through: middleware).authority == "staging.example.com")
        let error = #expect(throws: UnknownEnvironmentError.self) { try environments.select("qa") }
        #expect(error?.known == ["production", "staging"])
        #expect(environments.current == Self.staging)
    }

    @Test func endpointsSentThroughTheClientFollowTheEnvironment() async throws {
        let seen = Recorded<String>()
        let client = makeComponentsClient(MockTransport { request, _, _ in
            seen.append(request.url?.absoluteString ?? "")
            return RawResponse(status: .noContent)
        }, middlewares: [ServerDefaultsMiddleware(environment: Self.local, replacing: URL(string: "https://api.example.com/v1")!)])
        _ = try await client.send(Ping())
        #expect(seen.values == ["http://127.0.0.1:8080/ping"])
    }
}
