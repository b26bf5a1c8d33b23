import Foundation
import Loupe
import LoupeBoard
import LoupeTrace

/// The comparison as rows of cells: the terminal table, the markdown table and the inspector's screen all draw
/// these, so they cannot disagree. Names are recorded data and come with control characters made visible.
package enum ComparisonTable {
    package static func header(_ kind: GroupComparison.Kind) -> [String] {
        ["VERDICT", kind == .operation ? "OPERATION" : "HOST", "COUNT", "ERRORS", "P50", "P95", "P99", "RETRIES/EX",
         "WHY"]
    }

    /// One group's cells, in ``header(_:)``'s order; each figure written `A → B`.
    package static func cells(_ group: GroupComparison) -> [String] {
        func pair<T>(_ value: (GroupFigures) -> T?, _ text: (T) -> String) -> String {
            let a = group.a.flatMap(value).map(text) ?? "—", b = group.b.flatMap(value).map(text) ?? "—"
            return a == b ? a : "\(a) → \(b)"
        }
        func percentile(_ percent: Double) -> String {
            pair({ $0.latency.percentile(percent) }, { Quantity.duration($0) })
        }
        return [
            group.verdict.rawValue, TerminalText.line(group.name),
            pair({ $0.count }, { Quantity.count($0) }),
            pair({ $0.errorRate }, percent),
            percentile(50), percentile(95), percentile(99),
            pair({ $0.retriesPerExchange }, { String(format: "%.2f", $0) }),
            TerminalText.line(group.reasons.joined(separator: "; ")),
        ]
    }

    package static func percent(_ rate: Double) -> String { String(format: "%.1f%%", rate * 100) }

    /// Rows padded into columns (names left, figures right, reasons left and last).
    package static func lines(_ kind: GroupComparison.Kind, _ groups: [GroupComparison]) -> [String] {
        let rows = [header(kind)] + groups.map(cells)
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                let pad = String(repeating: " ", count: widths[column] - row[column].count)
                if column == row.count - 1 { return row[column] }
                return column < 2 ? row[column] + pad : pad + row[column]
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
    }

    /// The first line of a report: sizes and what was found.
    package static func summary(_ comparison: Comparison) -> String {
        let tally = comparison.tally(comparison.operations)
        let found = Verdict.allCases.compactMap { verdict in tally[verdict].map { "\($0) \(verdict.rawValue)" } }
        return "A: \(Quantity.count(comparison.totalA, "exchange")), B: \(Quantity.count(comparison.totalB, "exchange")); "
            + "operations: \(found.isEmpty ? "none" : found.joined(separator: ", "))"
            + (comparison.learnedNoise ? "; noise from two baseline runs" : "")
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
