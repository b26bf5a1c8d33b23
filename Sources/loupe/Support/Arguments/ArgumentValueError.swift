/// Why a typed value is not acceptable for an option: what was expected and what was typed.
///
/// Thrown from the options' `transform`; ArgumentParser puts the option's name in front and
/// ``UsageError/line(for:)`` turns that into one line: `--timeout: expected …, got 'inf'`.
struct ArgumentValueError: Error, CustomStringConvertible, Equatable {
    /// What the option accepts, e.g. "a number of seconds from 0.001 to 86400".
    var expected: String
    /// The text as typed.
    var got: String

    var description: String { "expected \(expected), got '\(got)'" }
}

/// The one place numbers typed on the command line are read and range-checked.
///
/// Anything outside the range, not finite (`inf`, `nan`) or not a number at all is refused here, so every value an
/// option hands on is finite and bounded, and later conversions (to `Int`, `Duration`, bytes) cannot trap.
enum NumberArgument {
    /// A decimal number within `range` (which must be finite).
    static func decimal(_ text: String, in range: ClosedRange<Double>, expected: String) throws(ArgumentValueError) -> Double {
        // `Double(_:)` also reads "inf", "nan" and hex floats; the range check below turns all but finite hex away.
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw ArgumentValueError(expected: expected, got: text)
        }
        return value
    }

    /// A whole number within `range`; "1e3", "2.0" and values beyond `Int` are refused with the same message.
    static func whole(_ text: String, in range: ClosedRange<Int>, expected: String) throws(ArgumentValueError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ArgumentValueError(expected: expected, got: text)
        }
        return value
    }

    /// `value` as typed in a message: whole numbers without a fraction, others as Swift prints them.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
