import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

/// The proofs: 1,000 concurrent 401s cause exactly one refresh; a failing refresh fails all 1,000 with one
/// error, and none hangs.
@Suite(.timeLimit(.minutes(5))) struct TokenRefreshStormTests {
    static let count = 1_000

    /// Sends `count` requests with `t1` held at the server until all have arrived, so every one of them is answered
    /// 401 for the same stale token, then holds the refresh until all `count` wait for it.
    func storm(
        refreshed: @escaping @Sendable (Int, Credential) async throws -> Credential
    ) async -> (results: [Result<ClientResponse<Data>, any Error>], provider: AuthFixture.Provider,
                server: AuthFixture.Server, log: Interleaving.EventLog, everyoneWaited: Bool) {
        let arrivals = Interleaving.Gate()
        let refreshGate = Interleaving.Gate()
        let provider = AuthFixture.Provider(gate: refreshGate, refreshed: refreshed)
        let server = AuthFixture.Server(accepting: ["t2"], hold: (token: "t1", gate: arrivals))
        let middleware = BearerTokenMiddleware(provider: provider)
        let log = Interleaving.EventLog()
        let client = Interleaving.client(server.transport, middlewares: [middleware], observer: log)
        return await withTaskGroup(of: Result<ClientResponse<Data>, any Error>.self) { group in
            for _ in 0..<Self.count {
                group.addTask { await Interleaving.outcome { try await client.execute(Interleaving.request()) } }
            }
            await arrivals.waitForArrivals(Self.count)
            arrivals.open()
            let everyoneWaited = await Interleaving.eventually(maxYields: 2_000_000) { middleware.waitingRequests == Self.count }
            refreshGate.open()
            var results: [Result<ClientResponse<Data>, any Error>] = []
            for await result in group { results.append(result) }
            return (results, provider, server, log, everyoneWaited)
        }
    }

    @Test func thousandConcurrent401sCauseExactlyOneRefreshAndAllSucceed() async {
        let (results, provider, server, log, everyoneWaited) = await storm { _, _ in Credential(token: "t2") }
        #expect(everyoneWaited)
        #expect(results.count == Self.count)
        let statuses = results.map { (try? $0.get())?.status.code }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses.filter { $0 != 200 }.count) did not succeed")
        #expect(provider.refreshes.count == 1)
        #expect(provider.loads.count == 1)
        // One 401 and one retry each.
        #expect(server.calls.count == 2 * Self.count)
        #expect(server.seen.values.filter { $0 == "Bearer t2" }.count == Self.count)
        let waits = AuthFixture.refreshWaits(log)
        #expect(waits.count == Self.count)
        #expect(Set(waits.compactMap { $0.attributes["round"] }).count == 1)
        #expect(waits.allSatisfy { $0.attributes["outcome"] == "refreshed" && $0.attributes["generation"] == "2" })
    }

    @Test func aFailingRefreshFailsAllThousandWithTheSameTypedErrorAndNoneHangs() async {
        let (results, provider, server, _, everyoneWaited) = await storm { number, _ in
            throw AuthFixture.ProviderFailure(round: number)
        }
        #expect(everyoneWaited)
        #expect(results.count == Self.count)
        let errors = results.map(AuthFixture.tokenError)
        #expect(errors.allSatisfy { $0 != nil }, "\(errors.filter { $0 == nil }.count) did not fail with TokenRefreshError")
        let rounds = Set(errors.compactMap { $0?.round })
        #expect(rounds.count == 1)
        #expect(errors.allSatisfy { $0?.reason == .refreshFailed && $0?.rejectedGeneration == 1 })
        #expect(errors.allSatisfy { $0?.underlyingError as? AuthFixture.ProviderFailure == AuthFixture.ProviderFailure(round: 1) })
        #expect(provider.refreshes.count == 1)
        #expect(server.calls.count == Self.count)
    }
}
