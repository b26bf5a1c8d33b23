import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite(.timeLimit(.minutes(5))) struct DeduplicationMiddlewareTests {
    /// A transport that counts calls and holds each at `gate`, answering with the request's path and a call number.
    struct HeldServer {
        let gate = Interleaving.Gate()
        let calls = Interleaving.Counter()
        let seen = Recorded<HTTPRequest>()

        var transport: MockTransport {
            MockTransport { [gate, calls, seen] request, _, _ in
                let number = calls.increment()
                seen.append(request)
                try await gate.pass()
                return RawResponse(status: .ok, body: Data("\(request.path ?? "") #\(number)".utf8))
            }
        }
    }

    func client(_ server: HeldServer, _ middleware: DeduplicationMiddleware = DeduplicationMiddleware(),
                log: Interleaving.EventLog = Interleaving.EventLog()) -> Client {
        Interleaving.client(server.transport, middlewares: [middleware], observer: log)
    }

    /// Sends a leader, waits until `server` holds it, then sends `count` identical joiners and waits until all
    /// have joined it.
    func leaderAndJoiners(
        _ count: Int, on client: Client, _ server: HeldServer, log: Interleaving.EventLog
    ) async -> (leader: Task<ClientResponse<Data>, any Error>, joiners: [Task<ClientResponse<Data>, any Error>]) {
        let leader = Task { try await client.execute(Interleaving.request()) }
        await server.gate.waitForArrivals(1)
        let joiners = (0..<count).map { _ in Task { try await client.execute(Interleaving.request()) } }
        await log.waitFor(.dedupJoin, count: count)
        return (leader, joiners)
    }

    @Test func concurrentIdenticalGETsShareOneTransportCall() async throws {
        let server = HeldServer()
        let log = Interleaving.EventLog()
        let middleware = DeduplicationMiddleware()
        let client = client(server, middleware, log: log)
        let n = 50
        let tasks = (0..<n).map { _ in Task { try await client.execute(Interleaving.request()) } }
        await log.waitFor(.dedupJoin, count: n - 1)
        #expect(middleware.inFlightRequests == 1)
        server.gate.open()
        var bodies: [String] = []
        for task in tasks { bodies.append(String(decoding: try await task.value.body, as: UTF8.self)) }
        #expect(bodies == Array(repeating: "/items #1", count: n))
        #expect(server.calls.count == 1)
        #expect(middleware.inFlightRequests == 0)
        // Joiners have no attempt of their own; the one attempt belongs to the leader named in their events.
        let leaders = Set(log.events(.dedupJoin).compactMap { $0.attributes["leader"] })
        #expect(leaders.count == 1)
        #expect(log.attempts.count == 1 && leaders.first == log.attempts.first?.exchangeID.uuidString)
    }

    /// Starts `requests` concurrently and waits until the transport has seen all of them: merged requests would
    /// never arrive, so the bounded wait fails the test instead of hanging.
    func expectSentSeparately(_ requests: [(HTTPRequest, RequestBody?)], middleware: DeduplicationMiddleware = DeduplicationMiddleware())
        async throws -> HeldServer {
        let server = HeldServer()
        let client = client(server, middleware)
        let tasks = requests.map { request, body in Task { try await client.execute(request, body: body) } }
        let allArrived = await Interleaving.eventually { server.gate.arrivals == requests.count }
        #expect(allArrived, "only \(server.gate.arrivals) of \(requests.count) requests reached the transport")
        server.gate.open()
        for task in tasks { _ = try await task.value }
        #expect(server.calls.count == requests.count)
        return server
    }

    @Test func postsAreNotMerged() async throws {
        let post = Interleaving.request(.post)
        _ = try await expectSentSeparately(Array(repeating: (post, RequestBody.string("same")), count: 5))
    }

    @Test func differentURLsAreNotMerged() async throws {
        _ = try await expectSentSeparately([
            (Interleaving.request(.get, "https://api.example.test/items"), nil),
            (Interleaving.request(.get, "https://api.example.test/items?page=2"), nil),
            (Interleaving.request(.get, "https://api.example.test/other"), nil),
            (Interleaving.request(.get, "https://other.example.test/items"), nil),
            (Interleaving.request(.head, "https://api.example.test/items"), nil),
        ])
    }

    @Test func differentKeyFieldsAreNotMergedOtherFieldsAre() async throws {
        _ = try await expectSentSeparately([
            (Interleaving.request(headers: [.accept: "application/json"]), nil),
            (Interleaving.request(headers: [.accept: "text/csv"]), nil),
            (Interleaving.request(headers: [.authorization: "Bearer a"]), nil),
            (Interleaving.request(headers: [.authorization: "Bearer b"]), nil),
        ])
        let server = HeldServer()
        let log = Interleaving.EventLog()
        let client = client(server, log: log)
        let a = Task { try await client.execute(Interleaving.request(headers: [.userAgent: "one"])) }
        let b = Task { try await client.execute(Interleaving.request(headers: [.userAgent: "two"])) }
        await log.waitFor(.dedupJoin, count: 1)
        server.gate.open()
        _ = try await (a.value, b.value)
        #expect(server.calls.count == 1)
    }

    @Test func theOptOutFieldSendsOnItsOwnAndIsNotForwarded() async throws {
        let request = Interleaving.request(headers: [DeduplicationMiddleware.optOutField: "1"])
        let server = try await expectSentSeparately([(request, nil), (request, nil), (request, nil)])
        #expect(server.seen.values.allSatisfy { $0.headerFields[DeduplicationMiddleware.optOutField] == nil })
    }

    @Test func anOperationCanOptOut() async throws {
        var configuration = DeduplicationMiddleware.Configuration()
        configuration.shouldDeduplicate = { _, operation in operation != "GET /items" }
        let request = Interleaving.request()
        _ = try await expectSentSeparately([(request, nil), (request, nil)], middleware: DeduplicationMiddleware(configuration: configuration))
    }

    @Test func aFailureIsSharedWithTheJoiners() async throws {
        let gate = Interleaving.Gate()
        let calls = Interleaving.Counter()
        let transport = MockTransport { _, _, _ in
            calls.increment()
            try await gate.pass()
            throw TransportError(.connectionReset, "peer went away")
        }
        let log = Interleaving.EventLog()
        let client = Interleaving.client(transport, middlewares: [DeduplicationMiddleware()], observer: log)
        let tasks = (0..<3).map { _ in Task { try await client.execute(Interleaving.request()) } }
        await log.waitFor(.dedupJoin, count: 2)
        gate.open()
        for task in tasks {
            guard let error = await clientError(of: task) else { continue }
            #expect(error.stage == .transport)
            #expect((error.underlyingError as? TransportError)?.kind == .connectionReset)
        }
        #expect(calls.count == 1)
    }

    @Test func aCancelledJoinerLeavesAndTheOthersStillShare() async throws {
        let server = HeldServer()
        let log = Interleaving.EventLog()
        let client = client(server, log: log)
        let (leader, joiners) = await leaderAndJoiners(3, on: client, server, log: log)
        joiners[1].cancel()
        guard let error = await clientError(of: joiners[1]) else { return }
        #expect(error.stage == .cancelled)
        server.gate.open()
        #expect(try await leader.value.status == .ok)
        #expect(try await joiners[0].value.body == Data("/items #1".utf8))
        #expect(try await joiners[2].value.body == Data("/items #1".utf8))
        #expect(server.calls.count == 1)
    }

    @Test func aCancelledLeaderDoesNotFailTheJoinersTheFirstSendsInstead() async throws {
        let server = HeldServer()
        let log = Interleaving.EventLog()
        let middleware = DeduplicationMiddleware()
        let client = client(server, middleware, log: log)
        let (leader, joiners) = await leaderAndJoiners(2, on: client, server, log: log)
        leader.cancel()
        guard let error = await clientError(of: leader) else { return }
        #expect(error.stage == .cancelled)
        // The promoted joiner's own request reaches the transport; the other joiner now waits on it.
        await server.gate.waitForArrivals(2)
        server.gate.open()
        let bodies = [try await joiners[0].value.body, try await joiners[1].value.body]
        #expect(bodies == [Data("/items #2".utf8), Data("/items #2".utf8)])
        #expect(server.calls.count == 2)
        #expect(log.events(.dedupJoin).contains { $0.attributes["promotedFrom"] != nil })
        #expect(middleware.inFlightRequests == 0)
    }

    @Test func sequentialIdenticalRequestsAreNotMerged() async throws {
        let server = HeldServer()
        server.gate.open()
        let client = client(server)
        _ = try await client.execute(Interleaving.request())
        _ = try await client.execute(Interleaving.request())
        #expect(server.calls.count == 2)
    }

    @Test func streamedBodiesAreNeverMerged() async throws {
        var configuration = DeduplicationMiddleware.Configuration()
        configuration.methods = [.get, .post]
        let body = RequestBody.stream(length: nil, replayable: true) { AsyncThrowingStream { $0.finish() } }
        let post = Interleaving.request(.post)
        _ = try await expectSentSeparately([(post, body), (post, body)], middleware: DeduplicationMiddleware(configuration: configuration))
    }
}
