import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5))) struct BearerTokenMiddlewareTests {
    @Test func sendsTheProvidersCredentialAndLoadsItOnce() async throws {
        let provider = AuthFixture.Provider()
        let server = AuthFixture.Server(accepting: ["t1"])
        let log = Interleaving.EventLog()
        let client = Interleaving.client(server.transport, middlewares: [BearerTokenMiddleware(provider: provider)], observer: log)
        for _ in 0..<3 { #expect(try await client.execute(Interleaving.request()).status == .ok) }
        #expect(server.seen.values == Array(repeating: "Bearer t1", count: 3))
        #expect(provider.loads.count == 1 && provider.refreshes.count == 0)
        #expect(log.attempts.map { $0.annotations.extra["auth.generation"] } == ["1", "1", "1"])
    }

    @Test func a401RefreshesAndRetriesOnceWithTheNewCredential() async throws {
        let provider = AuthFixture.Provider()
        let server = AuthFixture.Server(accepting: ["t2"])
        let log = Interleaving.EventLog()
        let client = Interleaving.client(server.transport, middlewares: [BearerTokenMiddleware(provider: provider)], observer: log)
        let response = try await client.execute(Interleaving.request())
        #expect(response.status == .ok)
        #expect(server.seen.values == ["Bearer t1", "Bearer t2"])
        #expect(provider.refreshes.count == 1)
        #expect(provider.rejected.values.map(\.generation) == [1])
        #expect(log.attempts.map { $0.annotations.retryReason } == [nil, "401 with credential generation 1; refreshed to 2"])
        let wait = try #require(AuthFixture.refreshWaits(log).first)
        #expect(wait.attributes["outcome"] == "refreshed" && wait.attributes["generation"] == "2")
        #expect(wait.attributes["trigger"] == "401 on generation 1")
    }

    @Test func a401ToTheFreshCredentialIsReturnedWithoutAnotherRefresh() async throws {
        let provider = AuthFixture.Provider()
        let server = AuthFixture.Server(accepting: [])
        let client = Interleaving.client(server.transport, middlewares: [BearerTokenMiddleware(provider: provider)])
        let response = try await client.execute(Interleaving.request())
        #expect(response.status == .unauthorized)
        #expect(server.calls.count == 2 && provider.refreshes.count == 1)
    }

    @Test func a401ForAStaleCredentialRetriesWithTheCurrentOneWithoutRefreshing() async throws {
        // A is sent with t1 and held; B is sent with t1, gets 401 and refreshes to t2; then A's 401 arrives.
        let gate = Interleaving.Gate()
        let provider = AuthFixture.Provider()
        let held = Mutex(true)
        let server = AuthFixture.Server(accepting: ["t2"])
        let transport = MockTransport { request, body, context in
            if request.path == "/slow", held.withLock({ $0 }) { try await gate.pass() }
            return try await server.transport.send(request, body: body, context: context)
        }
        let log = Interleaving.EventLog()
        let middleware = BearerTokenMiddleware(provider: provider)
        let client = Interleaving.client(transport, middlewares: [middleware], observer: log)
        let a = Task { try await client.execute(Interleaving.request(.get, "https://api.example.test/slow")) }
        await gate.waitForArrivals(1)
        #expect(try await client.execute(Interleaving.request()).status == .ok)
        #expect(middleware.currentCredential?.generation == 2)
        held.withLock { $0 = false }
        gate.open()
        #expect(try await a.value.status == .ok)
        #expect(provider.refreshes.count == 1)
        let retryOfA = log.attempts.last { $0.request.path == "/slow" }
        #expect(retryOfA?.annotations.retryReason == "401 with stale credential generation 1; current is 2")
        #expect(retryOfA?.request.headerFields[.authorization] == "Bearer t2")
        #expect(AuthFixture.refreshWaits(log).count == 1)
    }

    @Test func anExpiredCredentialIsRefreshedBeforeSending() async throws {
        let now = Interleaving.Now()
        let provider = AuthFixture.Provider(initial: Credential(token: "t1", expiresAt: now.current.addingTimeInterval(60))) { _, _ in
            Credential(token: "t2", expiresAt: now.current.addingTimeInterval(3600))
        }
        let server = AuthFixture.Server(accepting: ["t1", "t2"])
        var configuration = BearerTokenMiddleware.Configuration()
        configuration.now = now.closure
        configuration.refreshLeeway = .seconds(10)
        let log = Interleaving.EventLog()
        let client = Interleaving.client(
            server.transport, middlewares: [BearerTokenMiddleware(provider: provider, configuration: configuration)],
            observer: log, now: now)
        _ = try await client.execute(Interleaving.request())
        now.advance(seconds: 49)
        _ = try await client.execute(Interleaving.request())
        #expect(provider.refreshes.count == 0)
        now.advance(seconds: 1)  // 10 s left: inside the leeway
        _ = try await client.execute(Interleaving.request())
        #expect(provider.refreshes.count == 1)
        #expect(server.seen.values == ["Bearer t1", "Bearer t1", "Bearer t2"])
        #expect(provider.rejected.values.map(\.token) == ["t1"])
        #expect(AuthFixture.refreshWaits(log).map { $0.attributes["trigger"] } == ["generation 1 expired"])
    }

    @Test func aWaitingRequestCanBeCancelledAndTheRefreshGoesOnForTheOthers() async throws {
        let gate = Interleaving.Gate()
        let provider = AuthFixture.Provider(gate: gate)
        let server = AuthFixture.Server(accepting: ["t2"])
        let middleware = BearerTokenMiddleware(provider: provider)
        let log = Interleaving.EventLog()
        let client = Interleaving.client(server.transport, middlewares: [middleware], observer: log)
        let tasks = (0..<3).map { _ in Task { try await client.execute(Interleaving.request()) } }
        // All three were answered 401 and wait for the refresh (not for the initial load, which is not held).
        #expect(await Interleaving.eventually { server.calls.count == 3 && middleware.waitingRequests == 3 })
        tasks[1].cancel()
        #expect(await Interleaving.eventually { middleware.waitingRequests == 2 })
        guard let error = await clientError(of: tasks[1]) else { return }
        #expect(error.stage == .cancelled)
        gate.open()
        #expect(try await tasks[0].value.status == .ok)
        #expect(try await tasks[2].value.status == .ok)
        #expect(provider.refreshes.count == 1)
        let outcomes = AuthFixture.refreshWaits(log).compactMap { $0.attributes["outcome"] }.sorted()
        #expect(outcomes == ["cancelled", "refreshed", "refreshed"])
    }

    @Test func theWaitIsMeasuredOnTheClientsClock() async throws {
        let clock = ManualClock()
        let gate = Interleaving.Gate()
        let provider = AuthFixture.Provider(gate: gate)
        let server = AuthFixture.Server(accepting: ["t2"])
        let log = Interleaving.EventLog()
        let middleware = BearerTokenMiddleware(provider: provider)
        let client = Interleaving.client(server.transport, middlewares: [middleware], clock: clock, observer: log)
        let task = Task { try await client.execute(Interleaving.request()) }
        await gate.waitForArrivals(1)
        clock.advance(by: .milliseconds(2500))
        gate.open()
        _ = try await task.value
        let wait = try #require(AuthFixture.refreshWaits(log).first)
        #expect(wait.attributes["waitMs"] == "2500")
        #expect(wait.message.hasPrefix("waited 2.50 s for token refresh 2"))
    }

    @Test func aFailedRefreshIsTypedAndTheNextRequestTriesAgain() async throws {
        let provider = AuthFixture.Provider { number, _ in
            if number == 1 { throw AuthFixture.ProviderFailure(round: number) }
            return Credential(token: "t\(number + 1)")
        }
        let server = AuthFixture.Server(accepting: ["t3"])
        let client = Interleaving.client(server.transport, middlewares: [BearerTokenMiddleware(provider: provider)])
        let first = await Interleaving.outcome { try await client.execute(Interleaving.request()) }
        let error = try #require(AuthFixture.tokenError(first))
        #expect(error.reason == .refreshFailed && error.rejectedGeneration == 1)
        #expect(error.underlyingError as? AuthFixture.ProviderFailure == AuthFixture.ProviderFailure(round: 1))
        if case .failure(let clientError as ClientError) = first { #expect(clientError.stage == .middleware) }
        // Known bad now, so the next request refreshes before it sends anything.
        #expect(try await client.execute(Interleaving.request()).status == .ok)
        #expect(server.seen.values == ["Bearer t1", "Bearer t3"])
    }

    @Test func theRefreshLimitStopsAStormAndTheWindowSlides() async throws {
        let now = Interleaving.Now()
        var configuration = BearerTokenMiddleware.Configuration()
        configuration.now = now.closure
        configuration.refreshLimit = TokenRefreshLimit(maxRefreshes: 2, window: .seconds(60))
        let provider = AuthFixture.Provider()
        let server = AuthFixture.Server(accepting: [])  // a server that rejects every token
        let client = Interleaving.client(
            server.transport, middlewares: [BearerTokenMiddleware(provider: provider, configuration: configuration)], now: now)
        #expect(try await client.execute(Interleaving.request()).status == .unauthorized)
        #expect(try await client.execute(Interleaving.request()).status == .unauthorized)
        for _ in 0..<3 {
            let error = AuthFixture.tokenError(await Interleaving.outcome { try await client.execute(Interleaving.request()) })
            #expect(error?.reason == .limitExceeded)
        }
        #expect(provider.refreshes.count == 2)
        // Two requests with a refresh and a retry each, one rejected 401 whose refresh was refused, then nothing.
        #expect(server.calls.count == 5)
        now.advance(seconds: 61)
        #expect(try await client.execute(Interleaving.request()).status == .unauthorized)
        #expect(provider.refreshes.count == 4)
    }

    @Test func aRequestThatCarriesItsOwnAuthorizationIsLeftAlone() async throws {
        let provider = AuthFixture.Provider()
        let server = AuthFixture.Server(accepting: [])
        let client = Interleaving.client(server.transport, middlewares: [BearerTokenMiddleware(provider: provider)])
        let response = try await client.execute(Interleaving.request(headers: [.authorization: "Basic abc"]))
        #expect(response.status == .unauthorized)
        #expect(server.seen.values == ["Basic abc"])
        #expect(provider.loads.count == 0 && provider.refreshes.count == 0)
    }

    @Test func aBodyThatCannotBeReplayedIsNotRetried() async throws {
        let provider = AuthFixture.Provider()
        let server = AuthFixture.Server(accepting: ["t2"])
        let client = Interleaving.client(server.transport, middlewares: [BearerTokenMiddleware(provider: provider)])
        let body = RequestBody.stream(length: nil, replayable: false) { AsyncThrowingStream { $0.finish() } }
        let response = try await client.execute(Interleaving.request(.post), body: body)
        #expect(response.status == .unauthorized)
        #expect(server.calls.count == 1 && provider.refreshes.count == 0)
    }

    @Test func theRefreshRequestGoesThroughTheSameClientWithoutRecursingOrDeadlocking() async throws {
        // The provider calls the token endpoint through the very client that waits for it, and the throttle's only
        // permit is held by the request waiting for the refresh: without the bypass this would deadlock.
        let box = AuthFixture.ClientBox()
        let tokenRequests = Recorded<String?>()
        let itemCalls = Interleaving.Counter()
        let transport = RoutedTransport([
            .init(.post, .exact("/token")) { request, _, _ in
                tokenRequests.append(request.headerFields[.authorization])
                return RawResponse(status: .ok, body: Data("t2".utf8))
            },
            .init(.get, .exact("/items")) { request, _, _ in
                itemCalls.increment()
                return RawResponse(status: request.headerFields[.authorization] == "Bearer t2" ? .ok : .unauthorized)
            },
        ])
        let throttle = ThrottleMiddleware(maxConcurrent: 1)
        let client = Interleaving.client(
            transport, middlewares: [throttle, BearerTokenMiddleware(provider: AuthFixture.ClientProvider(box: box))])
        box.set(client)
        #expect(try await client.execute(Interleaving.request()).status == .ok)
        #expect(tokenRequests.values == [nil])
        #expect(itemCalls.count == 2)
        #expect(throttle.snapshot.running == 0)
    }
}
