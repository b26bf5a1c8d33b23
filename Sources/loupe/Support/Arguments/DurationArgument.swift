import ArgumentParser

/// A positive span of time typed in seconds (`--timeout 2.5`) or days (`--max-age 14`), finite and bounded.
///
/// The bounds keep every derived value representable: ``duration`` and ``seconds`` never overflow or trap.
struct DurationArgument: Sendable, Hashable, CustomStringConvertible {
    /// The typed value in seconds.
    let seconds: Double

    /// Seconds options (`--timeout`, `--deadline`, `--breaker-wait`, `--duration`): 1 ms to one day.
    static let secondsRange: ClosedRange<Double> = 0.001...86_400
    /// Day options (`--max-age`): about 9 s to 100 years.
    static let daysRange: ClosedRange<Double> = 0.0001...36_500

    /// The span as a `Duration`, to the nanosecond (at most 100 years, well inside `Int64` nanoseconds).
    var duration: Duration { .nanoseconds(Int64((seconds * 1e9).rounded())) }

    /// The span in days.
    var days: Double { seconds / 86_400 }

    var description: String { NumberArgument.format(seconds) }

    /// Reads a number of seconds within ``secondsRange``.
    static func seconds(_ text: String) throws(ArgumentValueError) -> DurationArgument {
        let range = secondsRange
        let value = try NumberArgument.decimal(text, in: range, expected: "a number of seconds from "
            + "\(NumberArgument.format(range.lowerBound)) to \(NumberArgument.format(range.upperBound))")
        return DurationArgument(seconds: value)
    }

    /// Reads a number of days within ``daysRange``.
    static func days(_ text: String) throws(ArgumentValueError) -> DurationArgument {
        let range = daysRange
        let value = try NumberArgument.decimal(text, in: range, expected: "a number of days from "
            + "\(NumberArgument.format(range.lowerBound)) to \(NumberArgument.format(range.upperBound))")
        return DurationArgument(seconds: value * 86_400)
    }

    /// A value known to be in range (defaults in code).
    init(seconds: Double) {
        precondition(seconds.isFinite && seconds > 0, "DurationArgument must be positive and finite")
        self.seconds = seconds
    }
}

extension DurationArgument: ExpressibleByArgument {
    /// Reads seconds; options declare `transform: DurationArgument.seconds` (or `.days`) to report why a value fails.
    init?(argument: String) {
        guard let value = try? Self.seconds(argument) else { return nil }
        self = value
    }
}
