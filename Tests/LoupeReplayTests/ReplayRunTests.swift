import Foundation
import HTTPTypes
import Loupe
@testable import LoupeTrace
@testable import LoupeReplay
import LoupeTesting
import Synchronization
import Testing

@Suite("Replay runs: scheduling, pacing, figures")
struct ReplayRunTests {
    @Test("never more than `concurrency` in flight; every job runs once; results come back by index")
    func concurrency() async {
        let clock = ManualClock()
        let scheduler = ReplayScheduler(concurrency: 2, clock: clock)
        let gauge = Mutex((now: 0, peak: 0))
        let finished = Mutex<[Int]>([])
        let run = Task {
            await scheduler.run(count: 5, { index in
                gauge.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                try? await clock.sleep(for: .seconds(1))
                gauge.withLock { $0.now -= 1 }
                return index * 10
            }, progress: { index, _ in finished.withLock { $0.append(index) } })
        }
        for batch in [2, 2, 1] {
            await clock.waitForSleepers(batch)
            #expect(clock.sleeperCount == batch)  // the slots are full: nothing else has started
            clock.advance(by: .seconds(1))
        }
        let results = await run.value
        #expect(results.map(\.index) == [0, 1, 2, 3, 4])
        #expect(results.map(\.output) == [0, 10, 20, 30, 40])
        #expect(gauge.withLock { $0.peak } == 2)
        #expect(finished.withLock { $0.sorted() } == [0, 1, 2, 3, 4])
    }

    @Test("a rate spaces the starts 1/rate apart from the first, whatever the concurrency")
    func pacing() async {
        let clock = ManualClock()
        let scheduler = ReplayScheduler(concurrency: 8, rate: 4, clock: clock)
        let starts = Mutex<[Duration]>([])
        let run = Task {
            await scheduler.run(count: 3) { _ in
                starts.withLock { $0.append(clock.now.offset) }
                try? await clock.sleep(for: .seconds(10))  // holds each job open, so the test knows it started
            }
        }
        await clock.waitForSleepers(2)  // the first job and the pacer's wait for the second
        #expect(starts.withLock { $0 } == [.zero])
        clock.advance(by: .milliseconds(249))
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .milliseconds(1))
        await clock.waitForSleepers(3)  // two jobs and the wait for the third
        clock.advance(by: .milliseconds(250))
        await clock.waitForSleepers(3)  // three jobs, no more waits
        clock.advance(by: .seconds(10))
        _ = await run.value
        #expect(starts.withLock { $0 } == [.zero, .milliseconds(250), .milliseconds(500)])
    }

    @Test("the pacer's offsets")
    func pacer() {
        #expect(ReplayPacer(rate: nil).offset(of: 5) == .zero)
        #expect(ReplayPacer(rate: 0).interval == nil)
        #expect(ReplayPacer(rate: .infinity).interval == nil)
        #expect(ReplayPacer(rate: 2).offset(of: 3) == .milliseconds(1_500))
        #expect(ReplayPacer(rate: 0.01).interval == .seconds(100))
        #expect(ReplayPacer(rate: 3).interval == .nanoseconds(333_333_333))
    }

    @Test("cancelling the run stops new starts and returns what finished")
    func cancellation() async {
        let clock = ManualClock()
        let scheduler = ReplayScheduler(concurrency: 1, clock: clock)
        let run = Task {
            await scheduler.run(count: 100) { index in
                if index == 0 { return index }
                try? await clock.sleep(for: .seconds(1))
                return index
            }
        }
        await clock.waitForSleepers(1)
        run.cancel()
        let results = await run.value
        #expect(results.map(\.index) == [0, 1])
    }

    @Test("figures: statuses, errors by kind, nearest-rank percentiles, requests per second")
    func tally() {
        var outcomes = (1...100).map { ReplayOutcome(originalID: UUID(), replayID: UUID(), status: 200, duration: Double($0) / 1000) }
        outcomes[0].status = 503
        outcomes[1].status = nil
        outcomes[1].errorKind = "connect failed"
        outcomes[2].status = nil
        outcomes[2].errorKind = "connect failed"
        let tally = ReplayTally(outcomes)
        #expect(tally.count == 100)
        #expect(tally.statuses == [200: 97, 503: 1])
        #expect(tally.errors == ["connect failed": 2])
        #expect(tally.errorCount == 2)
        let percentiles = tally.percentiles
        #expect(percentiles?.p50 == 0.05 && percentiles?.p95 == 0.095 && percentiles?.p99 == 0.099)
        #expect(tally.requestsPerSecond(elapsed: 2) == 50)
        #expect(tally.requestsPerSecond(elapsed: 0) == nil)
        #expect(ReplayTally().percentiles == nil)
        #expect(ReplayTally([ReplayOutcome(originalID: UUID(), replayID: nil, duration: 0.5)]).percentiles?.p99 == 0.5)
    }
}
