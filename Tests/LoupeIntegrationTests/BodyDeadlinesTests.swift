import NIOCore
import Synchronization
import NIOEmbedded
import Testing

@testable import LoupeAsyncHTTPClient

/// `BodyDeadlines`: every watched attempt expires at its deadline, on an event loop whose clock the test moves.
@Suite struct BodyDeadlinesTests {
    let loop = EmbeddedEventLoop()

    /// A timer for an attempt that started at the loop's now, and whether its cancel was called.
    func attempt(timeout: Duration) -> (AttemptTimer, Cancelled) {
        let timer = AttemptTimer(timeout: timeout, from: loop.now)
        let cancelled = Cancelled()
        timer.attach { cancelled.mark() }
        return (timer, cancelled)
    }

    @Test func anAttemptIsCancelledWhenItsDeadlinePassesAndNotBefore() {
        let deadlines = BodyDeadlines(eventLoop: loop)
        let (timer, cancelled) = attempt(timeout: .milliseconds(100))
        _ = deadlines.watch(timer)
        loop.advanceTime(by: .milliseconds(99))
        #expect(!cancelled.value)
        loop.advanceTime(by: .milliseconds(1))
        #expect(cancelled.value)
        #expect(timer.cancelledTheAttempt)
    }

    @Test func anAttemptThatEndedIsLeftAlone() {
        let deadlines = BodyDeadlines(eventLoop: loop)
        let (timer, cancelled) = attempt(timeout: .milliseconds(100))
        deadlines.unwatch(deadlines.watch(timer))
        loop.advanceTime(by: .seconds(1))
        #expect(!cancelled.value)
    }

    @Test func aShorterTimeoutWatchedAfterALongerOneStillExpiresOnTime() {
        let deadlines = BodyDeadlines(eventLoop: loop)
        let (long, longCancelled) = attempt(timeout: .seconds(60))
        let (short, shortCancelled) = attempt(timeout: .seconds(1))
        _ = deadlines.watch(long)
        _ = deadlines.watch(short)
        #expect(deadlines.pendingTimers == 2)
        loop.advanceTime(by: .seconds(1))
        #expect(shortCancelled.value && !longCancelled.value)
        loop.advanceTime(by: .seconds(59))
        #expect(longCancelled.value)
        #expect(deadlines.pendingTimers == 0)
    }

    @Test func attemptsWatchedInTheOrderTheyFallDueShareOneTimer() {
        let deadlines = BodyDeadlines(eventLoop: loop)
        var attempts: [(AttemptTimer, Cancelled)] = []
        for _ in 0..<100 {
            let next = attempt(timeout: .seconds(10))
            _ = deadlines.watch(next.0)
            attempts.append(next)
            loop.advanceTime(by: .milliseconds(10))
        }
        #expect(deadlines.pendingTimers == 1)
        // The first is due at 10 s; the timer then moves on to each next one.
        loop.advanceTime(by: .seconds(9))
        #expect(attempts[0].1.value && !attempts[1].1.value)
        loop.advanceTime(by: .seconds(1))
        #expect(attempts.allSatisfy { $0.1.value })
        #expect(deadlines.pendingTimers == 0)
    }

    @Test func aDeadlineAlreadyPassedExpiresOnTheNextTurnOfTheLoop() {
        let deadlines = BodyDeadlines(eventLoop: loop)
        let (timer, cancelled) = attempt(timeout: .milliseconds(5))
        loop.advanceTime(by: .milliseconds(10))
        _ = deadlines.watch(timer)
        loop.run()
        #expect(cancelled.value)
    }

    @Test func aCancelArrivingAfterTheDeadlineActedIsCalledAtOnce() {
        let deadlines = BodyDeadlines(eventLoop: loop)
        let timer = AttemptTimer(timeout: .milliseconds(5), from: loop.now)
        _ = deadlines.watch(timer)
        loop.advanceTime(by: .milliseconds(5))
        let cancelled = Cancelled()
        timer.attach { cancelled.mark() }
        #expect(cancelled.value)
    }
}

/// Whether a cancel closure ran.
final class Cancelled: Sendable {
    private let flag = Mutex(false)
    func mark() { flag.withLock { $0 = true } }
    var value: Bool { flag.withLock { $0 } }
}
