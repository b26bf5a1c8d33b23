import Foundation
import Loupe
import LoupeTesting
import Testing

@Suite struct BackoffJitterTests {
    typealias Backoff = RetryPolicy.Backoff
    let exponential = Backoff.exponential(base: .milliseconds(100), multiplier: 2, cap: .seconds(1))

    @Test func exponentialGrowsByTheMultiplierUntilTheCap() {
        let delays = (1...6).map { exponential.delay(forRetry: $0) }
        #expect(delays == [100, 200, 400, 800, 1000, 1000].map { Duration.milliseconds($0) })
        let triple = Backoff.exponential(base: .milliseconds(10), multiplier: 3, cap: .seconds(60))
        #expect((1...4).map { triple.delay(forRetry: $0) } == [10, 30, 90, 270].map { Duration.milliseconds($0) })
    }

    @Test func aHugeExponentStaysAtTheCap() {
        #expect(exponential.delay(forRetry: 10_000) == .seconds(1))
    }

    @Test func constantAndNone() {
        #expect((1...3).map { Backoff.constant(.milliseconds(250)).delay(forRetry: $0) } == Array(repeating: .milliseconds(250), count: 3))
        #expect(Backoff.none.delay(forRetry: 5) == .zero)
    }

    @Test func noJitterIsTheBackoff() {
        #expect(RetryPolicy.Jitter.none.apply(to: exponential, retry: 3, previous: nil, random: RetryFixture.middle) == .milliseconds(400))
    }

    @Test func fullJitterDrawsBetweenZeroAndTheBackoff() {
        let full = RetryPolicy.Jitter.full
        #expect(full.apply(to: exponential, retry: 3, previous: nil, random: RetryFixture.top) == .milliseconds(400))
        #expect(full.apply(to: exponential, retry: 3, previous: nil, random: RetryFixture.middle) == .milliseconds(200))
        #expect(full.apply(to: exponential, retry: 3, previous: nil, random: RetryFixture.bottom) == .zero)
        #expect(full.apply(to: exponential, retry: 9, previous: nil, random: RetryFixture.top) == .seconds(1))
    }

    @Test func equalJitterKeepsHalfTheBackoff() {
        let equal = RetryPolicy.Jitter.equal
        #expect(equal.apply(to: exponential, retry: 3, previous: nil, random: RetryFixture.bottom) == .milliseconds(200))
        #expect(equal.apply(to: exponential, retry: 3, previous: nil, random: RetryFixture.middle) == .milliseconds(300))
        #expect(equal.apply(to: exponential, retry: 3, previous: nil, random: RetryFixture.top) == .milliseconds(400))
    }

    @Test func decorrelatedJitterGrowsFromThePreviousDelayUpToTheCap() {
        let decorrelated = RetryPolicy.Jitter.decorrelated
        // sleep = min(cap, random(base, previous × 3)), previous starting at base.
        var previous: Duration?
        var delays: [Duration] = []
        for retry in 1...4 {
            let delay = decorrelated.apply(to: exponential, retry: retry, previous: previous, random: RetryFixture.top)
            delays.append(delay)
            previous = delay
        }
        #expect(delays == [300, 900, 1000, 1000].map { Duration.milliseconds($0) })
        #expect(decorrelated.apply(to: exponential, retry: 4, previous: .milliseconds(900), random: RetryFixture.bottom) == .milliseconds(100))
        #expect(decorrelated.apply(to: exponential, retry: 2, previous: .milliseconds(300), random: RetryFixture.middle) == .milliseconds(500))
    }

    @Test func aRandomSourceOutsideTheRangeIsClamped() {
        let wild: @Sendable (ClosedRange<Double>) -> Double = { _ in 1_000 }
        #expect(RetryPolicy.Jitter.full.apply(to: exponential, retry: 1, previous: nil, random: wild) == .milliseconds(100))
        let negative: @Sendable (ClosedRange<Double>) -> Double = { _ in -5 }
        #expect(RetryPolicy.Jitter.equal.apply(to: exponential, retry: 2, previous: nil, random: negative) == .milliseconds(100))
    }

    @Test(arguments: RetryPolicy.Jitter.allCases)
    func seededDelaysStayWithinEachFormulasBounds(jitter: RetryPolicy.Jitter) {
        let random = SeededRandomSource(seed: 7)
        var previous: Duration?
        var distinct = Set<Duration>()
        for draw in 0..<10_000 {
            let retry = draw % 12 + 1
            let backoff = exponential.delay(forRetry: retry)
            let delay = jitter.apply(to: exponential, retry: retry, previous: previous, random: random.inRange)
            let bounds: ClosedRange<Duration> = switch jitter {
            case .none: backoff...backoff
            case .full: .zero...backoff
            case .equal: backoff / 2...backoff
            case .decorrelated: .milliseconds(100)...max(.milliseconds(100), min(.seconds(1), (previous ?? .milliseconds(100)) * 3))
            }
            #expect(bounds.contains(delay), "retry \(retry): \(delay) outside \(bounds)")
            distinct.insert(delay)
            previous = delay
        }
        // The source is really random: jitter spreads delays (except `none`, which has one per retry number).
        #expect(distinct.count > (jitter == .none ? 4 : 1_000))
    }

    @Test func theSameSeedGivesTheSameDelays() {
        func delays(seed: UInt64) -> [Duration] {
            let policy = RetryPolicy(jitter: .full, random: SeededRandomSource(seed: seed).inRange)
            return (1...5).map { policy.delay(forRetry: $0, previous: nil) }
        }
        #expect(delays(seed: 1) == delays(seed: 1))
        #expect(delays(seed: 1) != delays(seed: 2))
    }
}
