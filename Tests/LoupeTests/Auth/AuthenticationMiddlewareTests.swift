import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization
import Testing

/// The authentication seam: one middleware drives any ``Authenticator``.
@Suite struct AuthenticationMiddlewareTests {
    /// An API key in a header of its own, rejected with 403, replaced by a scripted ``CredentialRefresh``.
    struct APIKeyAuthenticator: Authenticator {
        struct Key: Sendable, Equatable {
            var value: String
            var generation: Int
        }

        let refreshes = Interleaving.Counter()
        var current = Key(value: "k1", generation: 1)
        var answer: @Sendable (Key) -> CredentialRefresh<Key> = { .refreshed(Key(value: "k2", generation: $0.generation + 1)) }
        var hasGenerations = true

        func credential(for request: HTTPRequest, context: RequestContext) async throws -> Key? {
            request.path == "/public" ? nil : current
        }

        func apply(_ credential: Key, to request: inout HTTPRequest) {
            request.headerFields[HTTPField.Name("X-Api-Key")!] = credential.value
        }

        func isAuthenticationFailure(_ response: RawResponse) -> Bool { response.status == .forbidden }

        func refresh(rejected: Key, context: RequestContext) async throws -> CredentialRefresh<Key> {
            refreshes.increment()
            return answer(rejected)
        }

        func generation(of credential: Key) -> Int? { hasGenerations ? credential.generation : nil }
    }

    /// 200 for `k2`, 403 for anything else; records the key of every call.
    static func server(_ seen: Recorded<String?>) -> MockTransport {
        MockTransport { request, _, _ in
            let key = request.headerFields[HTTPField.Name("X-Api-Key")!]
            seen.append(key)
            return RawResponse(status: key == "k2" ? .ok : .forbidden)
        }
    }

    @Test func aCustomAuthenticatorIsAppliedRefreshedAndAnnotated() async throws {
        let seen = Recorded<String?>()
        let authenticator = APIKeyAuthenticator()
        let log = Interleaving.EventLog()
        let client = Interleaving.client(Self.server(seen), middlewares: [AuthenticationMiddleware(authenticator)], observer: log)
        #expect(try await client.execute(Interleaving.request()).status == .ok)
        #expect(seen.values == ["k1", "k2"])
        #expect(authenticator.refreshes.count == 1)
        #expect(log.attempts.map { $0.annotations.extra["auth.generation"] } == ["1", "2"])
        #expect(log.attempts.map { $0.annotations.retryReason } == [nil, "403 with credential generation 1; refreshed to 2"])
    }

    @Test func aNewerCredentialIsUsedWithoutRefreshingAndSaysSo() async throws {
        let seen = Recorded<String?>()
        var authenticator = APIKeyAuthenticator()
        authenticator.answer = { _ in .newer(APIKeyAuthenticator.Key(value: "k2", generation: 5)) }
        let log = Interleaving.EventLog()
        let client = Interleaving.client(Self.server(seen), middlewares: [AuthenticationMiddleware(authenticator)], observer: log)
        #expect(try await client.execute(Interleaving.request()).status == .ok)
        #expect(log.attempts.last?.annotations.retryReason == "403 with stale credential generation 1; current is 5")
    }

    @Test func withoutGenerationsNothingIsAnnotatedAndTheReasonStillSaysWhat() async throws {
        let seen = Recorded<String?>()
        var authenticator = APIKeyAuthenticator()
        authenticator.hasGenerations = false
        let log = Interleaving.EventLog()
        let client = Interleaving.client(Self.server(seen), middlewares: [AuthenticationMiddleware(authenticator)], observer: log)
        #expect(try await client.execute(Interleaving.request()).status == .ok)
        #expect(log.attempts.allSatisfy { $0.annotations.extra["auth.generation"] == nil })
        #expect(log.attempts.map { $0.annotations.retryReason } == [nil, "403; credential refreshed"])
    }

    @Test func anUnavailableRefreshReturnsTheRejectionAfterOneCall() async throws {
        let seen = Recorded<String?>()
        var authenticator = APIKeyAuthenticator()
        authenticator.answer = { _ in .unavailable }
        let client = Interleaving.client(Self.server(seen), middlewares: [AuthenticationMiddleware(authenticator)])
        #expect(try await client.execute(Interleaving.request()).status == .forbidden)
        #expect(seen.values == ["k1"] && authenticator.refreshes.count == 1)
    }

    @Test func aResponseThatIsNotAnAuthFailureIsNotRefreshedFor() async throws {
        // 401 is not this authenticator's failure: its own predicate decides, not the default.
        let authenticator = APIKeyAuthenticator()
        let client = Interleaving.client(
            MockTransport { _, _, _ in RawResponse(status: .unauthorized) }, middlewares: [AuthenticationMiddleware(authenticator)])
        #expect(try await client.execute(Interleaving.request()).status == .unauthorized)
        #expect(authenticator.refreshes.count == 0)
    }

    @Test func aNilCredentialSendsTheRequestAsItIs() async throws {
        let seen = Recorded<String?>()
        let authenticator = APIKeyAuthenticator()
        let client = Interleaving.client(Self.server(seen), middlewares: [AuthenticationMiddleware(authenticator)])
        #expect(try await client.execute(Interleaving.request(.get, "https://api.example.test/public")).status == .forbidden)
        #expect(seen.values == [nil] && authenticator.refreshes.count == 0)
    }

    @Test func aStaticTokenIsSentAndARejectionIsReturnedAsItIs() async throws {
        let seen = Recorded<String?>()
        let log = Interleaving.EventLog()
        let transport = MockTransport { request, _, _ in
            seen.append(request.headerFields[.authorization])
            return RawResponse(status: .unauthorized)
        }
        let client = Interleaving.client(
            transport, middlewares: [AuthenticationMiddleware(StaticTokenAuthenticator(token: "s3cret"))], observer: log)
        #expect(try await client.execute(Interleaving.request()).status == .unauthorized)
        _ = try await client.execute(Interleaving.request(headers: [.authorization: "Basic mine"]))
        #expect(seen.values == ["Bearer s3cret", "Basic mine"])
        #expect(log.attempts.allSatisfy { $0.annotations.extra["auth.generation"] == nil && $0.annotations.retryReason == nil })
    }

    @Test func basicAuthIsTheSameMiddlewareWithABasicAuthenticator() {
        let middleware: AuthenticationMiddleware<BasicAuthenticator> = BasicAuthMiddleware(username: "Aladdin", password: "open sesame")
        #expect(middleware.authenticator.headerValue == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }
}
