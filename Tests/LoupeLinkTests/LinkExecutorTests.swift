import Foundation
import LoupeQuery
import Synchronization
import Testing
@testable import LoupeLink

/// The app's connection loop runs on a NIO event loop, not on Swift's cooperative pool (DECISIONS 144): an app whose
/// pool is busy still links. Without it, this test's link never dialled (acknowledged 0 after 20 s).
@Suite(.serialized) struct LinkExecutorTests {
    /// Blocks every thread of the cooperative pool, starts a link from inside that, and waits (blocking) for the
    /// viewer's acknowledgement: only a link whose loop runs elsewhere can deliver.
    @Test func aLinkDeliversWhileEveryThreadOfTheCooperativePoolIsBlocked() async throws {
        let harness = try await LinkLoopbackTests.Harness()
        let address = try harness.link()
        let width = ProcessInfo.processInfo.activeProcessorCount
        let shared = Shared()
        let logs = LinkLoopbackTests.LogBox()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<width {
                group.addTask {
                    shared.started.withLock { $0 += 1 }
                    // A blocking wait on purpose: this thread must stay taken until every pool thread is.
                    let barrier = Self.blockUntil(seconds: 30) { shared.started.withLock { $0 } == width }
                    guard index == 0 else {
                        // Longer than the link's wait below, so the pool stays blocked until the link has answered.
                        _ = Self.blockUntil(seconds: 60) { shared.seen.withLock { $0 } != nil }
                        return
                    }
                    let link = try? LoupeLink(address, configuration: LinkLoopbackTests.configuration(logs))
                    shared.link.withLock { $0 = link }
                    link?.forward(LinkLoopbackTests.exchanges(10))
                    _ = Self.blockUntil(seconds: 20) { link?.counts.acknowledged == 10 }
                    shared.seen.withLock { $0 = (link?.counts.acknowledged ?? -1, barrier) }
                }
            }
        }
        let result = try #require(shared.seen.withLock { $0 })
        #expect(result.barrier, "the \(width) blockers never all ran at once")
        #expect(result.acknowledged == 10, "app said \(logs.lines.withLock { $0 })")
        await shared.link.withLock { $0 }?.finish()
        await harness.listener.stop()
    }

    final class Shared: Sendable {
        let started = Mutex(0)
        let seen = Mutex<(acknowledged: Int, barrier: Bool)?>(nil)
        let link = Mutex<LoupeLink?>(nil)
    }

    /// Polls `condition` on this thread, blocking it, for up to `seconds`.
    static func blockUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(1_000) // Blocks the pool thread on purpose (bounded by the deadline): that is what is tested.
        }
        return condition()
    }
}
