import Foundation
@testable import Loupe
import Testing

/// The one text of each quantity (Documentation/Glossary.md): every printer, CLI, inspector and event texts, uses
/// these, so their shapes are pinned here.
@Suite struct QuantityTests {
    @Test(arguments: [
        (0.0, "0.0 ms"), (0.0004, "0.4 ms"), (0.00996, "10 ms"), (0.0123, "12 ms"), (0.845, "845 ms"),
        (0.9996, "1.00 s"), (2.0122, "2.01 s"), (9.996, "10.0 s"), (12.34, "12.3 s"), (125.0, "125 s"),
        (725.0, "12 min"), (7300.0, "2 h"), (518_976.0, "6 d"), (1e300, ">999 d"), (-0.003, "-3.0 ms"),
    ])
    func durations(_ seconds: Double, _ text: String) {
        #expect(Quantity.duration(seconds) == text)
    }

    @Test func durationsOfEveryMagnitudeFitSixColumns() {
        var seconds = 1e-7
        while seconds < 1e9 {
            #expect(Quantity.duration(seconds).count <= 6, "\(seconds) → \(Quantity.duration(seconds))")
            seconds *= 1.07
        }
    }

    @Test func unknownDurations() {
        #expect(Quantity.duration(nil) == "—")
        #expect(Quantity.duration(.nan) == "—")
        #expect(Quantity.duration(.infinity) == "∞")
    }

    /// `waited 0.023296091 seconds` was Swift's own text of a `Duration` in event messages.
    @Test func swiftDurationsReadAsSeconds() {
        #expect(Quantity.duration(Duration.nanoseconds(23_296_091)) == "23 ms")
        #expect(Quantity.duration(Duration.seconds(60)) == "60.0 s")
        #expect(Quantity.duration(Duration.milliseconds(1500)) == "1.50 s")
    }

    /// `518976s ago` was the circuits panel's age of a transition.
    @Test func ages() {
        #expect(Quantity.age(518_976) == "6 d ago")
        #expect(Quantity.age(12) == "12.0 s ago")
        #expect(Quantity.age(-5) == "0.0 ms ago")
    }

    /// Binary units, said as such: the TUI's `KB` meant KiB.
    @Test(arguments: [
        (0, "0 B"), (999, "999 B"), (1023, "1.0 KiB"), (1024, "1.0 KiB"), (1536, "1.5 KiB"), (114_688, "112 KiB"),
        (794_624, "776 KiB"), (1_048_063, "1.0 MiB"), (3 << 30, "3.0 GiB"), (Int.max, "8.0 EiB"), (-4, "0 B"),
    ])
    func bytes(_ count: Int, _ text: String) {
        #expect(Quantity.bytes(count) == text)
    }

    @Test func counts() {
        #expect(Quantity.count(7) == "7")
        #expect(Quantity.count(1_234_567) == "1,234,567")
        #expect(Quantity.count(-1000) == "-1,000")
        #expect(Quantity.count(Int.min).hasPrefix("-9,223,372"))
        #expect(Quantity.count(1, "exchange") == "1 exchange")
        #expect(Quantity.count(12_345, "exchange") == "12,345 exchanges")
        #expect(Quantity.count(2, "entry", plural: "entries") == "2 entries")
    }

    /// Ids read the same everywhere: `#N` where the store's number is known, else the lowercase UUID.
    @Test func exchangeLabels() {
        let id = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!
        #expect(ExchangeLabel.id(id) == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
        #expect(ExchangeLabel.number(42) == "#42")
        #expect(ExchangeLabel.reference(id, numbers: [id: 7]) == "#7")
        #expect(ExchangeLabel.reference(id, numbers: [:]) == "6f9619ff-8b86-d011-b42d-00c04fc964ff")
    }

    /// The event kind of a breaker refusal took the glossary's word; stores written before say `circuit-reject`.
    @Test func oldEventKindsReadAsTheirNewWord() {
        #expect(ExchangeEventKind(rawValue: "circuit-reject") == .shortCircuit)
        #expect(ExchangeEventKind.shortCircuit.rawValue == "short-circuit")
        #expect(ExchangeOutcome.shortCircuited.word == "short-circuited")
        #expect(ExchangeOutcome.shortCircuited.code == "SHRT")
    }
}
