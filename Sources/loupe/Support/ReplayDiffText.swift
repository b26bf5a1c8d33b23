import Foundation
import LoupeTrace
import LoupeFormats
import LoupeReplay

/// The `--diff` part of `loupe replay`'s summary: for each original whose replays differ, the differences once per
/// distinct set (`20 replays (#45 …) differ:`), the noise, the notes; then one closing line.
struct ReplayDiffText {
    /// A text body's hunks are shown up to this many lines per difference.
    static let maximumDetailLines = 40

    let plan: ReplayPlan
    let comparisons: [ReplayComparison.Result]

    var lines: [String] {
        var lines: [String] = []
        let byOriginal = Dictionary(grouping: comparisons, by: \.outcome.originalID)
        var ignored = 0
        for original in plan.originals {
            guard let results = byOriginal[original.id] else { continue }
            ignored += results.reduce(0) { $0 + ($1.diff?.ignored.count ?? 0) }
            lines += section(original, results)
        }
        let differing = comparisons.count { $0.problem != nil || $0.diff?.isSame == false }
        let ignoredText = ignored > 0 ? "; \(ignored) difference\(ignored == 1 ? "" : "s") left out by --ignore" : ""
        if differing == 0 {
            let all = comparisons.count == 1 ? "the replay answers" : "all \(comparisons.count) replays answer"
            lines.append("Diff: \(all) as recorded (noise and volatile headers aside)\(ignoredText).")
        } else {
            lines.append("Diff: \(Self.differ(differing, of: comparisons.count)) from the recording\(ignoredText).")
        }
        return lines
    }

    private func section(_ original: TraceExchange, _ results: [ReplayComparison.Result]) -> [String] {
        var lines: [String] = []
        let differing = results.filter { $0.problem != nil || $0.diff?.isSame == false }
        let noise = uniqueLocations(results.flatMap { $0.diff?.noise ?? [] })
        let notes = Array(Set(results.flatMap { $0.diff?.notes ?? [] })).sorted()
        guard !differing.isEmpty || !noise.isEmpty || !notes.isEmpty else { return [] }
        let verdict = differing.isEmpty ? "answers as recorded" : Self.differ(differing.count, of: results.count)
        lines.append(TerminalText.line("#\(original.sequence ?? 0) \(original.method) \(original.url): \(verdict)"))
        // Replays that differ the same way are shown once.
        var groups: [(key: [String], members: [ReplayComparison.Result])] = []
        for result in differing {
            let key = result.problem.map { [$0] } ?? (result.diff?.differences.map(\.description) ?? [])
            if let index = groups.firstIndex(where: { $0.key == key }) { groups[index].members.append(result) } else { groups.append((key, [result])) }
        }
        for group in groups {
            let first = group.members[0]
            let more = group.members.count > 1 ? " and \(group.members.count - 1) more like it" : ""
            lines.append("  replay \(first.replaySequence.map { "#\($0)" } ?? "(not recorded)")\(more):")
            if let problem = first.problem { lines.append("    " + TerminalText.line(problem)) }
            for difference in first.diff?.differences ?? [] {
                lines.append("    " + TerminalText.line(difference.description))
                let detail = difference.detailLines
                lines += detail.prefix(Self.maximumDetailLines).map { "      " + TerminalText.line($0) }
                if detail.count > Self.maximumDetailLines { lines.append("      … \(detail.count - Self.maximumDetailLines) more lines") }
            }
        }
        if !noise.isEmpty {
            lines.append("  noise (changed between identical requests, not counted): " + TerminalText.line(noise.joined(separator: ", ")))
        }
        lines += notes.map { "  note: " + TerminalText.line($0) }
        return lines
    }

    /// `the replay differs`, `3 of 20 replays differ`.
    static func differ(_ count: Int, of total: Int) -> String {
        total == 1 ? "the replay differs" : "\(count) of \(total) replays differ"
    }

    private func uniqueLocations(_ differences: [Difference]) -> [String] {
        var seen: [String] = []
        for difference in differences where !seen.contains(difference.location.description) { seen.append(difference.location.description) }
        return seen
    }
}
