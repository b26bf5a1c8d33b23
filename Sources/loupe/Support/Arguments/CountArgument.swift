import ArgumentParser

/// A whole number within the bounds of the option it is typed for (`--retries 0...20`, `--limit 1...10000000`).
///
/// Options declare `transform: CountArgument.parser(in: 0...20)`; the bounds travel in the parser, so one type
/// serves every count and each refusal names its own range.
struct CountArgument: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    let value: Int

    var description: String { String(value) }

    init(_ value: Int) { self.value = value }
    init(integerLiteral value: Int) { self.value = value }

    /// A parser accepting whole numbers in `range`; `unit` ("milliseconds") is named in the refusal.
    static func parser(in range: ClosedRange<Int>, unit: String? = nil) -> @Sendable (String) throws -> CountArgument {
        { text in try parse(text, in: range, unit: unit) }
    }

    static func parse(_ text: String, in range: ClosedRange<Int>, unit: String? = nil) throws(ArgumentValueError) -> CountArgument {
        let noun = unit.map { "a whole number of \($0)" } ?? "a whole number"
        return CountArgument(try NumberArgument.whole(
            text, in: range, expected: "\(noun) from \(range.lowerBound) to \(range.upperBound)"))
    }
}

extension CountArgument: ExpressibleByArgument {
    /// Any non-negative `Int`; options narrow the range with ``parser(in:unit:)``.
    init?(argument: String) {
        guard let value = try? Self.parse(argument, in: 0...Int.max) else { return nil }
        self = value
    }
}
