import Foundation
import HTTPTypes
import Loupe
@testable import LoupeRules
import LoupeTesting
import LoupeTrace
import Testing

/// Each action through a real `Client` whose transport is an in-process script wrapped in `RulesTransport`.
@Suite struct RulesTransportTests {
    struct Harness {
        let server: ScriptedTransport
        let book: RuleBook
        let observer = InMemoryClientObserver()
        let client: Client

        init(_ rules: [Rule], steps: [ScriptedTransport.Step] = [.status(200, body: Data("from the server".utf8))],
             retry: RetryPolicy? = nil, clock: any Clock<Duration> = ContinuousClock(), maxHold: Duration = .seconds(60),
             breakers: CircuitBreakerRegistry? = nil) {
            server = ScriptedTransport(steps, clock: clock)
            book = RuleBook(maxHold: maxHold, clock: clock, random: { 0 })
            for rule in rules { book.put(rule, origin: .code) }
            var middlewares: [any ClientMiddleware] = []
            if let retry { middlewares.append(RetryMiddleware(policy: retry)) }
            if let breakers { middlewares.append(CircuitBreakerMiddleware(registry: breakers)) }
            var configuration = ClientConfiguration()
            configuration.clock = clock
            client = Client(baseURL: URL(string: "http://api.test")!, transport: RulesTransport(wrapping: server, book: book),
                            middlewares: middlewares, observer: observer, configuration: configuration)
        }

        func get(_ path: String = "/users/1", operation: String = "getUser") async throws -> ClientResponse<Data> {
            try await client.execute(HTTPRequest(method: .get, scheme: "http", authority: "api.test", path: path),
                                     options: RequestOptions(operation: operation))
        }

        func post(_ body: String, operation: String = "createOrder") async throws -> ClientResponse<Data> {
            try await client.execute(HTTPRequest(method: .post, scheme: "http", authority: "api.test", path: "/orders"),
                                     body: .data(Data(body.utf8)), options: RequestOptions(operation: operation))
        }

        var ruleEvents: [ExchangeEvent] { observer.events.filter { $0.kind == .rule } }
    }

    @Test func aMockAnswersWithoutReachingTheServerAndSaysItIsMocked() async throws {
        let harness = Harness([try Rule(name: "canned", match: "~op getUser",
                                        action: .mock(RuleMock(status: 200, headers: [TraceHeader(name: "content-type", value: "application/json")],
                                                               body: Data("{\"id\":1}".utf8), recordedFrom: 7)))])
        let response = try await harness.get()
        #expect(String(decoding: response.body, as: UTF8.self) == "{\"id\":1}")
        #expect(response.head.headerFields[.contentType] == "application/json")
        #expect(harness.server.requests.isEmpty, "a mock never reaches the network")
        let event = try #require(harness.ruleEvents.first)
        #expect(event.attributes["mocked"] == "true" && event.attributes["rule"] == "canned" && event.attributes["from"] == "#7")
        #expect(event.message.contains("not from the server"))
        _ = try await harness.get("/orders", operation: "listOrders")
        #expect(harness.server.requests.count == 1, "requests the rule does not match go through")
    }

    @Test func aStatusFaultIsRetriedLikeTheRealFailure() async throws {
        let harness = Harness([try Rule(name: "down", match: "~op getUser", action: .fault(.status(503)), limits: RuleLimits(times: 2))],
                              retry: RetryPolicy(maxAttempts: 3, backoff: .none, jitter: .none))
        let response = try await harness.get()
        #expect(response.head.status.code == 200, "the third attempt reached the server")
        #expect(response.attempts.map { $0.response?.status.code } == [503, 503, 200])
        #expect(harness.server.requests.count == 1)
        #expect(harness.ruleEvents.count == 2)
    }

    @Test func aResetFaultThrowsTheTransportsOwnError() async throws {
        let harness = Harness([try Rule(name: "reset", match: "~u .", action: .fault(.connectionReset))])
        let error = try await #require(throws: ClientError.self) { try await harness.get() }
        #expect(error.stage == .transport)
        #expect((error.underlyingError as? TransportError)?.kind == .connectionReset)
        #expect(harness.server.requests.isEmpty)
    }

    @Test func aTimeoutFaultWaitsForTheAttemptsTimeoutOnTheClock() async throws {
        let clock = ManualClock()
        let harness = Harness([try Rule(name: "slow", match: "~u .", action: .fault(.timeout))], clock: clock)
        let request = Task {
            try await harness.client.execute(HTTPRequest(method: .get, scheme: "http", authority: "api.test", path: "/"),
                                             options: RequestOptions(operation: "x", timeout: .seconds(5)))
        }
        await clock.waitForSleepers(1)
        #expect(clock.requestedSleeps == [.seconds(5)])
        clock.advance(by: .seconds(5))
        let error = try await #require(throws: ClientError.self) { try await request.value }
        #expect((error.underlyingError as? TransportError)?.kind == .timedOut)
    }

    @Test func aCutBodyKeepsWhatArrived() async throws {
        let harness = Harness([try Rule(name: "cut", match: "~u .", action: .fault(.cutBody(after: 4)))])
        let error = try await #require(throws: ClientError.self) { try await harness.get() }
        let partial = try #require((error.underlyingError as? TransportError)?.partialResponse)
        #expect(String(decoding: partial.body, as: UTF8.self) == "from")
        #expect(harness.server.requests.count == 1)
    }

    @Test func aDelayWaitsOnTheClockBeforeSending() async throws {
        let clock = ManualClock()
        let harness = Harness([try Rule(name: "slow", match: "~u .", action: .fault(.latency(.milliseconds(300))))], clock: clock)
        let request = Task { try await harness.get() }
        await clock.waitForSleepers(1)
        #expect(harness.server.requests.isEmpty, "not sent before the delay")
        clock.advance(by: .milliseconds(300))
        #expect(try await request.value.head.status.code == 200)
    }

    @Test func aRewriteSetsRemovesHeadersAndMapsTheBaseURL() async throws {
        let rewrite = RuleRewrite(setHeaders: [TraceHeader(name: "x-debug", value: "1")], removeHeaders: ["user-agent"],
                                  baseURL: URL(string: "http://127.0.0.1:9000/v2")!)
        let harness = Harness([try Rule(name: "staging", match: "~u .", action: .rewrite(rewrite))])
        _ = try await harness.get()
        let sent = try #require(harness.server.requests.first)
        #expect(sent.headerFields[HTTPField.Name("x-debug")!] == "1")
        #expect(sent.headerFields[.userAgent] == nil)
        #expect(sent.authority == "127.0.0.1:9000" && sent.path == "/v2/users/1")
        #expect(harness.ruleEvents.first?.attributes["action"] == "rewrite")
    }

    @Test func aBreakpointHoldsUntilTheViewerEditsAndContinues() async throws {
        let harness = Harness([try Rule(name: "hold orders", match: "~op createOrder", action: .breakpoint(RuleBreakpoint()))],
                              steps: [.status(201)])
        let request = Task { try await harness.post("{\"qty\":1}") }
        let held = try await Self.firstHeld(harness.book)
        #expect(held.operation == "createOrder" && held.phase == .request && held.body == Data("{\"qty\":1}".utf8))
        #expect(harness.server.requests.isEmpty, "held before it is sent")
        #expect(harness.book.decide(held: held.id, .edit(HoldEdit(body: Data("{\"qty\":5}".utf8)))))
        #expect(try await request.value.head.status.code == 201)
        #expect(harness.server.requests.count == 1)
        let event = try #require(harness.ruleEvents.first)
        #expect(event.attributes["decision"] == "edit" && event.attributes["edited"] == "body")
        #expect(harness.book.held.isEmpty)
    }

    @Test func anAbortFailsAtItsOwnStage() async throws {
        let harness = Harness([try Rule(name: "hold", match: "~u .", action: .breakpoint(RuleBreakpoint()))],
                              retry: RetryPolicy(maxAttempts: 3, backoff: .none, jitter: .none))
        let request = Task { try await harness.get() }
        let held = try await Self.firstHeld(harness.book)
        harness.book.decide(held: held.id, .abort)
        let error = try await #require(throws: ClientError.self) { try await request.value }
        #expect(error.stage == .abortedAtBreakpoint)
        #expect(error.underlyingError is AbortedAtBreakpointError)
        #expect(harness.server.requests.isEmpty && harness.ruleEvents.count == 1, "an abort is not retried")
    }

    @Test func theLongestHoldContinuesAndTheTraceSaysSo() async throws {
        let clock = ManualClock()
        let harness = Harness([try Rule(name: "hold", match: "~u .", action: .breakpoint(RuleBreakpoint()))],
                              clock: clock, maxHold: .seconds(60))
        let request = Task { try await harness.get() }
        _ = try await Self.firstHeld(harness.book)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(60))
        #expect(try await request.value.head.status.code == 200)
        #expect(harness.ruleEvents.first?.attributes["decision"] == "timeout")
        #expect(harness.ruleEvents.first?.message.contains("the longest hold") == true)
    }

    @Test func aViewerThatGoesAwayReleasesItsHeldRequestsAndRules() async throws {
        let harness = Harness([])
        harness.book.put(try Rule(name: "from viewer", match: "~u .", action: .breakpoint(RuleBreakpoint(request: false, response: true))),
                         origin: .viewer("tui"))
        let request = Task { try await harness.get() }
        let held = try await Self.firstHeld(harness.book)
        #expect(held.phase == .response && held.status == 200)
        harness.book.forget(.viewer("tui"))
        #expect(try await request.value.head.status.code == 200)
        #expect(harness.book.entries.isEmpty && !harness.book.isActive)
    }

    @Test func cancellingAHeldRequestLetsItGo() async throws {
        let harness = Harness([try Rule(name: "hold", match: "~u .", action: .breakpoint(RuleBreakpoint()))])
        let request = Task { try await harness.get() }
        _ = try await Self.firstHeld(harness.book)
        request.cancel()
        _ = try? await request.value
        #expect(harness.book.held.isEmpty)
    }

    @Test func aBreakerRuleForcesAKeyAndGivesItBack() async throws {
        let registry = CircuitBreakerRegistry(keying: .endpoint)
        let book = RuleBook()
        book.attach(breakers: registry)
        book.put(try Rule(name: "open getUser", match: "", action: .breaker(key: "getUser", override: .open)), origin: .code)
        #expect(registry.states()["getUser"] == .forcedOpen)
        book.setEnabled(false, named: "open getUser", by: .code)
        #expect(registry.states()["getUser"] != .forcedOpen)
        #expect(!book.isActive, "a breaker rule acts on no request")
    }

    @Test func anIdleBookCostsNoDecision() async throws {
        let harness = Harness([try Rule(name: "off", match: "~u .", action: .fault(.timeout), limits: RuleLimits(enabled: false))])
        #expect(!harness.book.isActive)
        _ = try await harness.get()
        #expect(harness.server.requests.count == 1 && harness.ruleEvents.isEmpty)
    }

    /// Waits (yielding, not sleeping) until the book holds a request.
    static func firstHeld(_ book: RuleBook) async throws -> HeldRequest {
        for _ in 0..<100_000 {
            if let held = book.held.first { return held }
            await Task.yield()
        }
        throw CancellationError()
    }
}
