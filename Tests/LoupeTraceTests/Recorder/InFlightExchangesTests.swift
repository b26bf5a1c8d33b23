import Foundation
import HTTPTypes
import Loupe
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// The recorder's in-flight exchanges: the first few in an array found by id, the rest in a dictionary
/// (DECISIONS 53). Every operation must answer as the dictionary alone did.
@Suite("InFlightExchanges")
struct InFlightExchangesTests {
    static func pending(_ id: UUID, operation: String = "op") -> PendingExchange {
        PendingExchange(ExchangeStarted(
            exchangeID: id, operation: operation,
            request: HTTPRequest(method: .get, scheme: "https", authority: "api.example.test", path: "/"),
            startedAt: Date(timeIntervalSince1970: 0)))
    }

    @Test("40 ids across the boundary: insert, replace, update and remove answer as a dictionary does")
    func matchesADictionary() {
        var random = SeededGenerator(seed: 463)
        var exchanges = InFlightExchanges()
        var reference: [UUID: String] = [:]
        let ids = (0..<40).map { _ in UUID() }
        for step in 0..<4_000 {
            let id = ids.randomElement(using: &random)!
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                exchanges.insert(Self.pending(id, operation: "insert \(step)"))
                reference[id] = "insert \(step)"
            case 2:
                exchanges.update(id) { $0.operation = "update \(step)" }
                if reference[id] != nil { reference[id] = "update \(step)" }
            default:
                #expect(exchanges.remove(id)?.pending.operation == reference.removeValue(forKey: id))
            }
            #expect(exchanges.count == reference.count)
        }
        let held = exchanges.filter { _ in true }
        #expect(Dictionary(uniqueKeysWithValues: held.map { ($0.id, $0.operation) }) == reference)
        for id in ids { #expect(exchanges.remove(id)?.pending.operation == reference.removeValue(forKey: id)) }
        #expect(exchanges.count == 0)
    }

    @Test("an unknown id changes nothing and removes nothing")
    func unknownID() {
        var exchanges = InFlightExchanges()
        let known = UUID()
        exchanges.insert(Self.pending(known))
        exchanges.update(UUID()) { $0.operation = "changed" }
        #expect(exchanges.remove(UUID()) == nil)
        #expect(exchanges.count == 1)
        #expect(exchanges.remove(known)?.pending.operation == "op")
    }

    @Test("past the first few, exchanges go to the dictionary, and room made in the array is used again")
    func overflow() {
        var exchanges = InFlightExchanges()
        let ids = (0..<(InFlightExchanges.few + 5)).map { _ in UUID() }
        for id in ids { exchanges.insert(Self.pending(id)) }
        #expect(exchanges.count == ids.count)
        // Ids only differing in their last bytes are told apart.
        var near = ids[0].uuid
        near.15 &+= 1
        #expect(exchanges.remove(UUID(uuid: near)) == nil)
        #expect(exchanges.remove(ids[3])?.id == ids[3])
        #expect(exchanges.remove(ids.last!)?.id == ids.last)
        let again = UUID()
        exchanges.insert(Self.pending(again))
        #expect(exchanges.count == ids.count - 1)
        for id in ids where id != ids[3] && id != ids.last { #expect(exchanges.remove(id)?.id == id) }
        #expect(exchanges.remove(again)?.id == again)
        #expect(exchanges.count == 0)
    }

    @Test("the table holds the box it was given: updates land in it, and removal hands the same box back (DECISIONS 53)")
    func boxesAreHeldNotCopied() {
        var exchanges = InFlightExchanges()
        let ids = (0..<(InFlightExchanges.few + 3)).map { _ in UUID() }
        let boxes = ids.map { ExchangeBox(Self.pending($0)) }
        for box in boxes { exchanges.insert(box) }
        for (id, box) in zip(ids, boxes) {
            exchanges.update(id) { $0.operation = "changed \(id)" }
            // Seen through the caller's own reference: the table changed the box, not a copy of its exchange.
            #expect(box.pending.operation == "changed \(id)")
            #expect(box.id == id)
        }
        for (id, box) in zip(ids, boxes).reversed() { #expect(exchanges.remove(id) === box) }
        #expect(exchanges.count == 0)
    }
}

extension InFlightExchanges {
    /// Holds `exchange`, boxed, under its id: the tests' shorthand (the recorder boxes each exchange at its start).
    mutating func insert(_ exchange: consuming PendingExchange) {
        insert(ExchangeBox(exchange))
    }
}
