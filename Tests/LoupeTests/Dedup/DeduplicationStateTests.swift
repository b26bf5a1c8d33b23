import Foundation
@testable import Loupe
import Testing

@Suite struct DeduplicationStateTests {
    typealias State = DeduplicationState<String>
    let exchanges = (0..<5).map { _ in UUID() }

    func member(_ index: Int) -> State.Member { .init(waiter: UInt64(index), exchange: exchanges[index]) }

    @Test func theFirstLeadsLaterOnesJoinAndFinishingHandsThemTheResult() {
        var state = State()
        let step1 = state.arrive("a", member(0))
        #expect(step1 == .lead)
        let step2 = state.arrive("a", member(1))
        #expect(step2 == .join(leader: exchanges[0]))
        let step3 = state.arrive("a", member(2))
        #expect(step3 == .join(leader: exchanges[0]))
        let step4 = state.arrive("b", member(3))
        #expect(step4 == .lead)
        let step5 = state.finish("a", leader: 0)
        #expect(step5 == [1, 2])
        #expect(state.flights.keys.sorted() == ["b"])
        // Over: the next identical request leads again.
        let step6 = state.arrive("a", member(4))
        #expect(step6 == .lead)
    }

    @Test func aCancelledLeaderHandsTheFlightToTheFirstJoiner() {
        var state = State()
        _ = state.arrive("a", member(0))
        _ = state.arrive("a", member(1))
        _ = state.arrive("a", member(2))
        let step7 = state.leaderCancelled("a", leader: 0)
        #expect(step7 == member(1))
        // Later joiners are told who leads now.
        let step8 = state.arrive("a", member(3))
        #expect(step8 == .join(leader: exchanges[1]))
        let step9 = state.finish("a", leader: 0)
        #expect(step9 == [], "the old leader no longer owns the flight")
        let step10 = state.finish("a", leader: 1)
        #expect(step10 == [2, 3])
        #expect(state.flights.isEmpty)
    }

    @Test func aCancelledLeaderAloneEndsTheFlight() {
        var state = State()
        _ = state.arrive("a", member(0))
        let step11 = state.leaderCancelled("a", leader: 0)
        #expect(step11 == nil)
        #expect(state.flights.isEmpty)
    }

    @Test func aCancelledJoinerLeavesOnlyItself() {
        var state = State()
        _ = state.arrive("a", member(0))
        _ = state.arrive("a", member(1))
        _ = state.arrive("a", member(2))
        let step12 = state.leave("a", waiter: 1)
        #expect(step12)
        let step13 = state.leave("a", waiter: 1)
        #expect(!step13)
        let step14 = state.leave("a", waiter: 0)
        #expect(!step14, "the leader is not a joiner")
        let step15 = state.finish("a", leader: 0)
        #expect(step15 == [2])
    }
}
