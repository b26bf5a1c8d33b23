import Foundation
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// The inserter reuses the last attempt notes' JSON when the next attempt's notes are equal (DECISIONS 53); it
/// compares them without hashing (``ExchangeInserter/sameNotes(_:_:)``, DECISIONS 53), which must answer as `==`.
@Suite("Attempt notes compared without hashing")
struct AttemptNotesComparisonTests {
    @Test("sameNotes answers as == on random maps: equal ones in other insertion orders, one key or value changed, other counts")
    func answersAsEquality() {
        var random = SeededGenerator(seed: 430)
        let pieces = ["a", "b", "key", "breaker", "é", "e\u{301}", "Ω", "ключ", "", "retry", "long value past fifteen bytes"]
        for _ in 0..<4_000 {
            let count = Int.random(in: 0...11, using: &random)
            var lhs: [String: String] = [:]
            for _ in 0..<count {
                lhs[pieces.randomElement(using: &random)! + pieces.randomElement(using: &random)!] =
                    pieces.randomElement(using: &random)!
            }
            // The same pairs inserted in another order (another iteration order, often).
            var rhs: [String: String] = [:]
            for (key, value) in lhs.shuffled(using: &random) { rhs[key] = value }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: break
            case 1: if let key = rhs.keys.randomElement(using: &random) { rhs[key]! += "x" }
            case 2:
                if let key = rhs.keys.randomElement(using: &random) {
                    let value = rhs.removeValue(forKey: key)!
                    rhs[key + "x"] = value
                }
            default: rhs[pieces.randomElement(using: &random)!] = pieces.randomElement(using: &random)!
            }
            #expect(ExchangeInserter.sameNotes(lhs, rhs) == (lhs == rhs), "\(lhs) \(rhs)")
            #expect(ExchangeInserter.sameNotes(rhs, lhs) == (rhs == lhs), "\(rhs) \(lhs)")
        }
    }

    @Test("canonically equivalent keys and values are equal, as for ==; a value differing only in case is not")
    func canonicalEquivalence() {
        #expect(ExchangeInserter.sameNotes(["caf\u{E9}": "x"], ["cafe\u{301}": "x"]))
        #expect(ExchangeInserter.sameNotes(["k": "caf\u{E9}"], ["k": "cafe\u{301}"]))
        #expect(!ExchangeInserter.sameNotes(["k": "a"], ["k": "A"]))
        #expect(!ExchangeInserter.sameNotes(["k": "a"], ["K": "a"]))
        #expect(ExchangeInserter.sameNotes([:], [:]))
        #expect(!ExchangeInserter.sameNotes([:], ["k": ""]))
    }
}
