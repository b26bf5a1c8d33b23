import Foundation
import Logging
import LoupeQuery
import LoupeTesting
import LoupeTrace
import NIOCore
import NIOPosix
import Synchronization
import Testing
@testable import LoupeLink

/// Reconnection (issue 28, point 3): backoff with jitter decided by a value, carried out on an injected clock, and
/// one "cannot reach" line per outage through swift-log.
@Suite struct LinkReconnectTests {
    static let backoff = LinkBackoff(initial: .milliseconds(100), maximum: .seconds(1), jitter: 0.5)

    @Test func anOutageIsSaidOnceAndTheDelayGrowsWithItsFailures() {
        var machine = LinkConnectionMachine(backoff: Self.backoff)
        #expect(machine.ended(welcomed: false, lasted: .zero, reason: "refused", unit: 0) == .logOutageAndWait("refused", .milliseconds(100)))
        #expect(machine.ended(welcomed: false, lasted: .zero, reason: "refused", unit: 0) == .wait(.milliseconds(200)))
        #expect(machine.ended(welcomed: false, lasted: .zero, reason: "refused", unit: 1) == .wait(.milliseconds(200)), "jitter: half of 400")
        for _ in 0..<20 { _ = machine.ended(welcomed: false, lasted: .zero, reason: "refused", unit: 0) }
        #expect(machine.ended(welcomed: false, lasted: .zero, reason: "refused", unit: 0) == .wait(.seconds(1)), "capped")
        #expect(machine.failures == 24)
    }

    @Test func aWelcomedConnectionEndsTheOutageAndResetsTheBackoff() {
        var machine = LinkConnectionMachine(backoff: Self.backoff)
        _ = machine.ended(welcomed: false, lasted: .zero, reason: "refused", unit: 0)
        _ = machine.ended(welcomed: false, lasted: .zero, reason: "refused", unit: 0)
        #expect(machine.ended(welcomed: true, lasted: LinkConnectionMachine.stableLink,
                              reason: "the listener closed the link", unit: 0)
            == .logOutageAndWait("the listener closed the link", .milliseconds(100)), "a new outage is said again")
        #expect(machine.failures == 1 && machine.outageReported)
    }

    /// Issue 44, item 19: a listener that welcomes and then misbehaves (here, each connection over in 50 ms) made
    /// the app redial at once and warn every time. Those connections are failed attempts of one outage.
    @Test func aWelcomeThatDoesNotHoldIsPartOfTheOutage() {
        var machine = LinkConnectionMachine(backoff: Self.backoff)
        var actions: [LinkConnectionMachine.Action] = []
        for _ in 0..<10 {
            actions.append(machine.ended(welcomed: true, lasted: .milliseconds(50), reason: "an unexpected welcome", unit: 0))
        }
        #expect(actions.first == .logOutageAndWait("an unexpected welcome", .milliseconds(100)))
        #expect(actions.dropFirst().allSatisfy { if case .wait = $0 { true } else { false } }, "warned once: \(actions)")
        #expect(actions.last == .wait(.seconds(1)), "backed off to the maximum, not redialled at once")
        #expect(machine.failures == 10)
        // Just under the bar is still the outage; a link that held ends it.
        #expect(machine.ended(welcomed: true, lasted: LinkConnectionMachine.stableLink - .milliseconds(1), reason: "x",
                              unit: 0) == .wait(.seconds(1)))
        #expect(machine.ended(welcomed: true, lasted: LinkConnectionMachine.stableLink, reason: "lost", unit: 0)
            == .logOutageAndWait("lost", .milliseconds(100)))
    }

    /// The real loop against a port nobody listens on: each redial waits on the manual clock (no test sleeps
    /// through a backoff), and a hundred failed attempts log one line.
    @Test func theLoopWaitsOnTheInjectedClockAndLogsOnce() async throws {
        // A port that refuses at once: bound, then closed.
        let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(probe.localAddress?.port)
        try await probe.close()
        let clock = ManualClock()
        let logs = LinkLoopbackTests.LogBox()
        let configuration = LoupeLink.Configuration(
            backoff: Self.backoff, connectTimeout: .seconds(5), drainTimeout: .zero, appName: "tester",
            logger: Logger(label: "test") { _ in LinkLoopbackTests.CollectingHandler(box: logs) }, clock: clock,
            random: { 0 })
        let address = try LinkAddress(secret: "0123456789abcdef0123456789abcdef", host: "127.0.0.1", port: port,
                                      fingerprint: CertificateFingerprint(bytes: Array(repeating: 7, count: 32))!)
        let link = try LoupeLink(address, configuration: configuration)
        var expected: [Duration] = []
        for attempt in 1...8 {
            await clock.waitForSleepers(1)
            #expect(link.core.attempts.withLock { $0 } == attempt, "no redial before the clock moves")
            expected.append(Self.backoff.delay(afterFailures: attempt, unit: 0))
            #expect(clock.requestedSleeps == expected)
            clock.advance(by: expected.last!)
        }
        await clock.waitForSleepers(1)
        link.forward(LinkLoopbackTests.exchanges(3))
        #expect(link.counts.pending == 3, "kept for a viewer that comes back; the request path never waits")
        let warnings = logs.lines.withLock { $0.filter { $0.contains("cannot reach") } }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.contains("0123456789abcdef") == false, "the secret is never logged")
        await link.finish()
    }
}

/// What the listener keeps per app: drop totals (a reconnecting app reports its total again) and source states.
@Suite struct LinkListenerSourcesTests {
    @Test func aReconnectingAppsDropTotalIsNotCountedTwice() async throws {
        let harness = try await LinkLoopbackTests.Harness()
        let app = LinkHello(app: "demo", executable: "demo", host: "box", pid: 7, secret: "")
        let shared = harness.listener.sharedForTests
        shared.sourceLinked(app)
        shared.reportDrops(5, from: app)
        shared.sourceLeft(app, at: Date(timeIntervalSince1970: 100))
        shared.sourceLinked(app)
        shared.reportDrops(5, from: app)  // the same total, said to the next connection
        shared.reportDrops(8, from: app)
        let other = LinkHello(app: "other", executable: "other", host: "box", pid: 8, secret: "")
        shared.sourceLinked(other)
        shared.reportDrops(2, from: other)
        shared.sourceLeft(other, at: Date(timeIntervalSince1970: 200))
        #expect(harness.listener.counts.droppedByApps == 10, "8 + 2, not 5 + 5 + 8 + 2")
        let sources = harness.listener.sources
        #expect(sources.map(\.app.app) == ["demo", "other"], "in the order they first linked")
        #expect(sources[0].connections == 1 && sources[0].goneSince == nil && sources[0].dropped == 8)
        #expect(sources[1].connections == 0 && sources[1].goneSince == Date(timeIntervalSince1970: 200))
        await harness.listener.stop()
    }

    @Test func aRealAppIsLinkedThenGone() async throws {
        let harness = try await LinkLoopbackTests.Harness()
        let logs = LinkLoopbackTests.LogBox()
        let link = try LoupeLink(try harness.link(), configuration: LinkLoopbackTests.configuration(logs))
        link.forward(LinkLoopbackTests.exchanges(2))
        #expect(await LinkLoopbackTests.eventually(60) { harness.listener.sources.first?.connections == 1 },
                "app: \(logs.lines.withLock { $0 }), listener: \(harness.lines), counts: \(link.counts)")
        await link.finish()
        #expect(await LinkLoopbackTests.eventually(60) { harness.listener.sources.first?.goneSince != nil })
        #expect(harness.listener.sources.map(\.app.app) == ["tester"])
        await harness.listener.stop()
    }
}
