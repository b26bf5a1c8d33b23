import Loupe
import LoupeTesting
import Testing

/// `Stopwatch.measure` and `measureResult` read the clock before and after their body themselves (DECISIONS 42):
/// the time the body takes on the injected clock, whether it returns or throws.
@Suite struct StopwatchTests {
    struct Refused: Error {}

    @Test func measureGivesTheBodysTimeOnTheClock() async {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        let (value, elapsed) = await Stopwatch.measure(on: clock) { () async -> Int in
            clock.advance(by: .milliseconds(1_250))
            return 7
        }
        #expect(value == 7)
        #expect(elapsed == .milliseconds(1_250))
    }

    @Test func measureResultTimesSuccessAndFailureAlike() async {
        let clock = ManualClock()
        let ok = await Stopwatch.measureResult(on: clock) { () async throws -> String in
            clock.advance(by: .seconds(2))
            return "ok"
        }
        #expect((try? ok.result.get()) == "ok")
        #expect(ok.elapsed == .seconds(2))
        let failed = await Stopwatch.measureResult(on: clock) { () async throws -> String in
            clock.advance(by: .milliseconds(300))
            throw Refused()
        }
        #expect(throws: Refused.self) { try failed.result.get() }
        #expect(failed.elapsed == .milliseconds(300))
    }

    @Test func measureOverAnExistentialClock() async {
        let manual = ManualClock()
        let clock: any Clock<Duration> = manual
        let (_, elapsed) = await Stopwatch.measure(on: clock) { manual.advance(by: .seconds(1)) }
        #expect(elapsed == .seconds(1))
    }
}
