@testable import loupe
import Testing

/// When `loupe ws` closes after the end of its input: not at once (an echo server answers a close at once and drops
/// the replies it had not sent), but once the server has been quiet for the linger, and never later than the limit.
@Suite("loupe ws: the close after the end of input")
struct WSInputEndTests {
    let ms = { (value: Int) in Duration.milliseconds(value) }

    @Test func nothingIsScheduledWhileInputLasts() {
        var end = WSInputEnd(linger: .milliseconds(500), limit: .seconds(5))
        end.received(at: ms(100))
        #expect(end.action(at: ms(10_000)) == .keepOpen)
    }

    @Test func aQuietServerIsClosedOneLingerAfterTheEndOfInput() {
        var end = WSInputEnd(linger: .milliseconds(500), limit: .seconds(5))
        end.received(at: ms(100))
        end.inputEnded(at: ms(200))
        #expect(end.action(at: ms(200)) == .wait(until: ms(700)))
        #expect(end.action(at: ms(699)) == .wait(until: ms(700)))
        #expect(end.action(at: ms(700)) == .close)
    }

    @Test func eachReplyAfterTheEndOfInputStartsTheQuietPeriodAgain() {
        var end = WSInputEnd(linger: .milliseconds(500), limit: .seconds(5))
        end.inputEnded(at: ms(0))
        end.received(at: ms(400))
        #expect(end.action(at: ms(500)) == .wait(until: ms(900)))
        end.received(at: ms(850))
        #expect(end.action(at: ms(900)) == .wait(until: ms(1_350)))
        #expect(end.action(at: ms(1_350)) == .close)
    }

    @Test func aServerThatNeverGoesQuietIsClosedAtTheLimit() {
        var end = WSInputEnd(linger: .milliseconds(500), limit: .seconds(2))
        end.inputEnded(at: ms(1_000))
        for time in stride(from: 1_000, through: 2_900, by: 100) {
            end.received(at: ms(time))
            #expect(end.action(at: ms(time)) != .close)
        }
        end.received(at: ms(2_950))
        #expect(end.action(at: ms(2_950)) == .wait(until: ms(3_000)))
        #expect(end.action(at: ms(3_000)) == .close)
    }

    @Test func onlyTheFirstEndOfInputCountsAndAnOutOfOrderTimeDoesNotMoveTheQuietBack() {
        var end = WSInputEnd(linger: .milliseconds(500), limit: .seconds(5))
        end.inputEnded(at: ms(100))
        end.inputEnded(at: ms(4_000))
        end.received(at: ms(800))
        end.received(at: ms(300))
        #expect(end.action(at: ms(800)) == .wait(until: ms(1_300)))
        #expect(end.action(at: ms(5_100)) == .close, "the limit counts from the first end of input")
    }
}
