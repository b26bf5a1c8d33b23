import Foundation
import LoupeTrace
import LoupeBoard

/// A column of the metrics table, for sorting (`o` cycles them, `v` reverses).
package enum MetricsColumn: String, CaseIterable, Sendable {
    case name, rate, errors, retries, denied, p50, p95, p99, max

    var title: String { rawValue }

    var next: MetricsColumn {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }

    /// Ascending order by this column; ties and unknowns by name ("all" first).
    func precedes(_ a: MetricsRow, _ b: MetricsRow) -> Bool {
        func key(_ row: MetricsRow) -> Double {
            switch self {
            case .name: 0
            case .rate: row.rate
            case .errors: row.counts.errorRate
            case .retries: row.counts.retryRate
            case .denied: Double(row.counts.budgetDenied)
            case .p50: row.p50 ?? -1
            case .p95: row.p95 ?? -1
            case .p99: row.p99 ?? -1
            case .max: row.max ?? -1
            }
        }
        let (left, right) = (key(a), key(b))
        if left != right { return left < right }
        return MetricsView.name(a.group) < MetricsView.name(b.group)
    }
}
