import ArgumentParser

/// A size typed in megabytes (MiB, fractions allowed: `--max-bytes 0.5`), finite and bounded.
struct ByteSizeArgument: Sendable, Hashable, CustomStringConvertible {
    /// The size in bytes (at most 16 TiB).
    let bytes: Int

    /// 0 MB (keep nothing) to 16 TiB.
    static let megabyteRange: ClosedRange<Double> = 0...16_777_216

    var megabytes: Double { Double(bytes) / 1_048_576 }

    var description: String { NumberArgument.format(megabytes) }

    /// Reads a number of megabytes within ``megabyteRange``.
    static func megabytes(_ text: String) throws(ArgumentValueError) -> ByteSizeArgument {
        let range = megabyteRange
        let value = try NumberArgument.decimal(text, in: range, expected: "a number of megabytes (MiB) from "
            + "\(NumberArgument.format(range.lowerBound)) to \(NumberArgument.format(range.upperBound))")
        // In range, so the product is at most 2^44 and converts exactly.
        return ByteSizeArgument(bytes: Int((value * 1_048_576).rounded()))
    }

    init(bytes: Int) {
        precondition(bytes >= 0, "ByteSizeArgument must not be negative")
        self.bytes = bytes
    }
}

extension ByteSizeArgument: ExpressibleByArgument {
    init?(argument: String) {
        guard let value = try? Self.megabytes(argument) else { return nil }
        self = value
    }
}
