import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeAsyncHTTPClient
import NIOCore
import Synchronization
import Testing

/// Authentication over loopback, through AsyncHTTPClient, against a Hummingbird server of its own: a route that
/// answers 401 unless it gets the server's current bearer token, and a token endpoint that rotates it.
@Suite(.timeLimit(.minutes(5))) struct AuthIntegrationTests {
    @Test func basicAuthIsAcceptedByARealServer() async throws {
        let router = Router()
        router.get("/basic") { request, _ in
            let expected = "Basic " + Data("demo:s3cret é".utf8).base64EncodedString()
            return plain(request.headers[.authorization] == expected ? "welcome" : "no", request.headers[.authorization] == expected ? .ok : .unauthorized)
        }
        try await withLocalServer(router) { baseURL in
            let url = baseURL.appendingPathComponent("basic")
            let bare = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport())
            #expect(try await bare.execute(HTTPRequest(method: .get, url: url)).status == .unauthorized)
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(),
                                middlewares: [BasicAuthMiddleware(username: "demo", password: "s3cret é")])
            let response = try await client.execute(HTTPRequest(method: .get, url: url))
            #expect(response.status == .ok && String(decoding: response.value, as: UTF8.self) == "welcome")
        }
    }

    @Test func concurrent401sRefreshOnceThroughTheSameClient() async throws {
        let server = TokenServer()
        try await withLocalServer(server.router) { baseURL in
            let observer = InMemoryClientObserver()
            let box = ClientBox()
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(),
                                middlewares: [BearerTokenMiddleware(provider: EndpointTokenProvider(box: box))], observer: observer)
            box.set(client)
            let statuses = await withTaskGroup(of: Int?.self) { group in
                for _ in 0..<40 {
                    group.addTask { try? await client.execute(HTTPRequest(method: .get, url: baseURL.appendingPathComponent("me"))).status.code }
                }
                return await group.reduce(into: [Int?]()) { $0.append($1) }
            }
            #expect(statuses.count == 40 && statuses.allSatisfy { $0 == 200 })
            #expect(server.tokenRequests == [nil], "one refresh, and it carried no bearer token of its own")
            #expect(server.current == "tok-2")
            // Every 401 was retried once with the refreshed token; nothing else reached the server.
            #expect(server.meHits == 40 + server.rejected)
            #expect(server.rejected >= 1)
            let waits = observer.events.filter { $0.kind == .tokenRefreshWait && $0.attributes["trigger"] != "initial credential" }
            #expect(waits.allSatisfy { $0.attributes["round"] == "2" && $0.attributes["generation"] == "2" })
        }
    }

    @Test func aFailingTokenEndpointFailsEveryWaiterWithOneError() async throws {
        let server = TokenServer(refreshFails: true)
        try await withLocalServer(server.router) { baseURL in
            let box = ClientBox()
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(),
                                middlewares: [BearerTokenMiddleware(provider: EndpointTokenProvider(box: box))])
            box.set(client)
            let errors = await withTaskGroup(of: TokenRefreshError?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do {
                            _ = try await client.execute(HTTPRequest(method: .get, url: baseURL.appendingPathComponent("me")))
                            return nil
                        } catch {
                            return (error as? ClientError)?.underlyingError as? TokenRefreshError
                        }
                    }
                }
                return await group.reduce(into: [TokenRefreshError?]()) { $0.append($1) }
            }
            #expect(errors.count == 20 && errors.allSatisfy { $0?.reason == .refreshFailed })
            #expect(Set(errors.compactMap { $0?.round }).count == 1)
            #expect(errors.allSatisfy { ($0?.underlyingError as? RefreshEndpointError)?.status == 500 })
            #expect(server.tokenRequests.count == 1)
        }
    }
}

/// The server side: `/me` wants `Bearer <current>`; `POST /token` rotates the token (or fails with 500).
private final class TokenServer: Sendable {
    private struct State {
        var current = "tok-1"
        var issued = 1
        var tokenRequests: [String?] = []
        var meHits = 0
        var rejected = 0
    }

    private let state = Mutex(State())
    private let refreshFails: Bool

    init(refreshFails: Bool = false) { self.refreshFails = refreshFails }

    var current: String { state.withLock { $0.current } }
    var tokenRequests: [String?] { state.withLock { $0.tokenRequests } }
    var meHits: Int { state.withLock { $0.meHits } }
    var rejected: Int { state.withLock { $0.rejected } }

    var router: Router<BasicRequestContext> {
        let router = Router()
        router.get("/me") { request, _ in
            let ok = self.state.withLock { state in
                state.meHits += 1
                let ok = request.headers[.authorization] == "Bearer \(state.current)"
                if !ok { state.rejected += 1 }
                return ok
            }
            return ok ? plain("me", .ok) : plain("unauthorized", .unauthorized)
        }
        router.post("/token") { request, _ in
            let token = self.state.withLock { state -> String in
                state.tokenRequests.append(request.headers[.authorization])
                state.issued += 1
                state.current = "tok-\(state.issued)"
                return state.current
            }
            return self.refreshFails ? plain("token service down", .internalServerError) : plain(token, .ok)
        }
        return router
    }
}

private struct RefreshEndpointError: Error {
    var status: Int
}

/// Starts from a token the server no longer accepts; refreshes by POSTing to `/token` through the same client.
private struct EndpointTokenProvider: TokenProvider {
    let box: ClientBox

    func currentCredential() async throws -> Credential { Credential(token: "tok-0") }

    func refresh(_ rejected: Credential) async throws -> Credential {
        guard let client = box.value else { throw RefreshEndpointError(status: 0) }
        let response = try await client.execute(
            HTTPRequest(method: .post, url: client.baseURL.appendingPathComponent("token")), body: .string("grant_type=refresh_token"))
        guard response.status == .ok else { throw RefreshEndpointError(status: response.status.code) }
        return Credential(token: String(decoding: response.value, as: UTF8.self))
    }
}

/// Lets a provider reach the client it authenticates, which is built after it.
private final class ClientBox: Sendable {
    private let client = Mutex<Client?>(nil)
    func set(_ client: Client) { self.client.withLock { $0 = client } }
    var value: Client? { client.withLock { $0 } }
}

private func plain(_ text: String, _ status: HTTPResponse.Status) -> Response {
    Response(status: status, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: text)))
}

/// Holds server handlers until the test opens it; counts arrivals so the test can wait for them. For the
/// de-duplication and throttle tests, which keep requests open on the server instead of sleeping.
final class ServerHold: Sendable {
    private struct State {
        var isOpen = false
        var arrivals = 0
        var inside = 0
        var maxInside = 0
        var held: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    var arrivals: Int { state.withLock { $0.arrivals } }
    var inside: Int { state.withLock { $0.inside } }
    var maxInside: Int { state.withLock { $0.maxInside } }

    /// Called by a handler: counts it in, waits until open, counts it out.
    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                state.arrivals += 1
                state.inside += 1
                state.maxInside = max(state.maxInside, state.inside)
                if !state.isOpen { state.held.append(continuation) }
                return state.isOpen
            }
            if open { continuation.resume() }
        }
        state.withLock { $0.inside -= 1 }
    }

    func open() {
        let held = state.withLock { state in
            state.isOpen = true
            defer { state.held = [] }
            return state.held
        }
        held.forEach { $0.resume() }
    }

    /// Yields until `condition` holds, at most `maxYields` times; `false` means it never did.
    func eventually(maxYields: Int = 2_000_000, _ condition: (ServerHold) -> Bool) async -> Bool {
        for _ in 0..<maxYields {
            if condition(self) { return true }
            await Task.yield()
        }
        return condition(self)
    }
}
