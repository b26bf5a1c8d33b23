import ArgumentParser

/// A percentage above 0 up to 100 (`--breaker-threshold 50`).
struct PercentArgument: Sendable, Hashable, CustomStringConvertible {
    let value: Double

    /// 0.01 % to 100 %; 0 would open the breaker on every call.
    static let range: ClosedRange<Double> = 0.01...100

    var description: String { NumberArgument.format(value) }

    init(_ value: Double) {
        precondition(Self.range.contains(value), "PercentArgument out of range")
        self.value = value
    }

    static func parse(_ text: String) throws(ArgumentValueError) -> PercentArgument {
        PercentArgument(try NumberArgument.decimal(text, in: range, expected: "a percentage from 0.01 to 100"))
    }
}

extension PercentArgument: ExpressibleByArgument {
    init?(argument: String) {
        guard let value = try? Self.parse(argument) else { return nil }
        self = value
    }
}
