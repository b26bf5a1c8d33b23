import ArgumentParser

/// A rate in requests per second (`--rate 50`, fractions allowed: `--rate 0.5` is one every 2 s), finite and bounded.
struct RateArgument: Sendable, Hashable, CustomStringConvertible {
    let perSecond: Double

    /// One request every 100 s up to 100,000 a second (10 µs apart).
    static let range: ClosedRange<Double> = 0.01...100_000

    var description: String { NumberArgument.format(perSecond) }

    static func parse(_ text: String) throws(ArgumentValueError) -> RateArgument {
        RateArgument(perSecond: try NumberArgument.decimal(
            text, in: range, expected: "a rate in requests per second from 0.01 to 100000"))
    }
}

extension RateArgument: ExpressibleByArgument {
    init?(argument: String) {
        guard let value = try? Self.parse(argument) else { return nil }
        self = value
    }
}
