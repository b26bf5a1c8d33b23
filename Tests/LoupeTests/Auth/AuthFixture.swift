// Fixtures for the auth tests: a token provider that counts and can be held, and a server that accepts tokens.
import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization

enum AuthFixture {
    struct ProviderFailure: Error, Equatable {
        var round: Int
    }

    /// Counts loads and refreshes; a refresh can be held at `gate` and scripted by `refreshed`.
    final class Provider: TokenProvider {
        let loads = Interleaving.Counter()
        let refreshes = Interleaving.Counter()
        let rejected = Recorded<Credential>()
        let gate: Interleaving.Gate?
        private let initial: Credential
        private let refreshed: @Sendable (_ number: Int, _ rejected: Credential) async throws -> Credential

        init(
            initial: Credential = Credential(token: "t1"), gate: Interleaving.Gate? = nil,
            refreshed: @escaping @Sendable (Int, Credential) async throws -> Credential = { number, _ in
                Credential(token: "t\(number + 1)")
            }
        ) {
            self.initial = initial
            self.gate = gate
            self.refreshed = refreshed
        }

        func currentCredential() async throws -> Credential {
            loads.increment()
            return initial
        }

        func refresh(_ rejected: Credential) async throws -> Credential {
            let number = refreshes.increment()
            self.rejected.append(rejected)
            try await gate?.pass()
            return try await refreshed(number, rejected)
        }
    }

    /// Answers 200 to `Authorization: Bearer <token>` for an accepted token, 401 to anything else; counts calls
    /// and can hold requests carrying `holdToken` at `hold` (to line up concurrent 401s).
    final class Server: Sendable {
        let calls = Interleaving.Counter()
        let seen = Recorded<String?>()
        private let accepted: Mutex<Set<String>>
        private let hold: (token: String, gate: Interleaving.Gate)?

        init(accepting tokens: Set<String>, hold: (token: String, gate: Interleaving.Gate)? = nil) {
            accepted = Mutex(tokens)
            self.hold = hold
        }

        var transport: MockTransport {
            MockTransport { request, _, _ in
                self.calls.increment()
                let authorization = request.headerFields[.authorization]
                self.seen.append(authorization)
                if let hold = self.hold, authorization == "Bearer \(hold.token)" { try await hold.gate.pass() }
                let token = authorization.map { String($0.dropFirst("Bearer ".count)) } ?? ""
                let ok = self.accepted.withLock { $0.contains(token) }
                return RawResponse(status: ok ? .ok : .unauthorized, body: Data((ok ? "hello" : "no").utf8))
            }
        }
    }

    static func tokenError(_ result: Result<ClientResponse<Data>, any Error>) -> TokenRefreshError? {
        guard case .failure(let error as ClientError) = result else { return nil }
        return error.underlyingError as? TokenRefreshError
    }

    /// The refresh waits recorded, leaving out waits for the initial load.
    static func refreshWaits(_ log: Interleaving.EventLog) -> [ExchangeEvent] {
        log.events(.tokenRefreshWait).filter { $0.attributes["trigger"] != "initial credential" }
    }

    /// Lets a provider reach the client it authenticates, which is built after it.
    final class ClientBox: Sendable {
        private let client = Mutex<Client?>(nil)
        init() {}
        func set(_ client: Client) { self.client.withLock { $0 = client } }
        var value: Client? { client.withLock { $0 } }
    }

    /// Starts with `t1`; refreshes by POSTing to `/token` through the same client.
    struct ClientProvider: TokenProvider {
        let box: ClientBox

        func currentCredential() async throws -> Credential { Credential(token: "t1") }

        func refresh(_ rejected: Credential) async throws -> Credential {
            guard let client = box.value else { throw ProviderFailure(round: 0) }
            let response = try await client.execute(
                HTTPRequest(method: .post, url: URL(string: "https://api.example.test/token")!), body: .string("grant_type=refresh_token"))
            return Credential(token: String(decoding: response.body, as: UTF8.self))
        }
    }
}
