import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import LoupeBoard
import Testing
@testable import LoupeTestSupport

@Suite struct BreakerScenarioTests {
    @Test("a breaker opens under 503s: the board, read from the recorded store, shows OPEN with the reason and the next probe")
    func opens() async throws {
        let store = InMemoryTraceStore()
        let inspector = NetworkTraceInspector(store: store)
        var breaker = CircuitBreakerConfiguration()
        breaker.slidingWindow = .count(4)
        breaker.minimumNumberOfCalls = 4
        breaker.waitDurationInOpen = .seconds(30)
        let clock = ManualClock()
        var configuration = Fixture.configuration()
        configuration.clock = clock
        let client = Client(
            baseURL: URL(string: "https://api.example.test")!,
            transport: ScriptedTransport(Array(repeating: .status(503), count: 4), clock: clock),
            middlewares: [CircuitBreakerMiddleware(configuration: breaker)], observer: inspector, configuration: configuration)
        for _ in 0..<5 { _ = try? await client.execute(Fixture.request("https://api.example.test/items")) }
        await inspector.flush()

        var board = BreakerBoard()
        for exchange in try store.activity(after: .min, limit: 100) { board.add(exchange) }
        let row = try #require(board.rows(now: Fixture.start.addingTimeInterval(10)).first)
        #expect(row.key == "api.example.test")
        #expect(row.state == .open)
        #expect(row.lastTransition?.reason == "failure rate 100% ≥ 50% over 4 calls")
        #expect(row.thresholds.isRecorded && row.thresholds.windowCalls == 4)
        #expect(row.notPermitted == 1)
        // Opened at the wall clock's tick during the 4th exchange; the probe is 30 s later, seen 10 s in.
        let opened = try #require(row.lastTransition?.at)
        let probeIn = try #require(row.probeIn)
        #expect(abs(probeIn - (30 - 10 + opened.timeIntervalSince(Fixture.start))) < 0.5)
    }
}
