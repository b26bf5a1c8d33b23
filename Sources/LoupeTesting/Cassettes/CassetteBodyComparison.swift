import Foundation
import LoupeTrace

/// How ``CassetteMatcher/body`` compares two bodies that differ byte for byte, with the JSON reader and the
/// structural comparison the replay's diff uses (numbers by decimal value, objects without regard to key order).
enum CassetteBodyComparison {
    static func verdict(recorded: Data, live: Data) -> CassetteMatcher.Verdict {
        guard let old = JSONParser.parse(recorded), let new = JSONParser.parse(live) else {
            return .mismatch(sizes(recorded, live))
        }
        let differences = JSONComparison.differences(old, new)
        guard let first = differences.first else { return .match }
        let more = differences.count > 1 ? " (and \(differences.count - 1) more)" : ""
        return .mismatch(describe(first) + more)
    }

    /// `12 bytes vs 14 bytes`, or that contents differ when the sizes are equal.
    static func sizes(_ recorded: Data, _ live: Data) -> String {
        recorded.count == live.count
            ? "\(count(recorded.count)), contents differ"
            : "\(count(recorded.count)) vs \(count(live.count))"
    }

    /// A JSON difference in the verdicts' `recorded vs live` form: `$.price: 10 vs 12`.
    private static func describe(_ difference: JSONComparison.Difference) -> String {
        let location = CassetteMatcher.shown(difference.path.description)
        switch difference.change {
        case .changed(let from, let to): return location + ": " + CassetteMatcher.shown(from) + " vs " + CassetteMatcher.shown(to)
        case .added(let value): return location + ": absent vs " + CassetteMatcher.shown(value)
        case .removed(let value): return location + ": " + CassetteMatcher.shown(value) + " vs absent"
        }
    }

    private static func count(_ bytes: Int) -> String {
        "\(bytes) byte\(bytes == 1 ? "" : "s")"
    }
}
