import LoupeTrace
import LoupeFormats

/// A request no interaction may answer, with every recorded request's verdicts: what the no-match error explains.
struct CassetteMiss {
    /// One matcher's verdict on one recorded request.
    struct Verdict {
        var name: String
        var verdict: CassetteMatcher.Verdict
    }

    /// One recorded request and how it compares.
    struct Candidate {
        /// 1-based, in recorded order.
        var number: Int
        var method: String
        var pathAndQuery: String
        var verdicts: [Verdict]
        var alreadyPlayed: Bool

        var matchCount: Int { verdicts.count { $0.verdict.isMatch } }
    }

    /// How many of the closest recordings the message lists.
    static let listed = 3

    var request: CassetteRequest
    var candidates: [Candidate]

    /// `no recorded interaction matches GET https://…`, then the closest recordings, most matchers passed first
    /// (recorded order between equals), one per line:
    /// `  #2 GET /items?page=2 — method ✓ path ✓ query ✗ (page=2 vs page=3)`.
    var message: String {
        var lines = ["no recorded interaction matches \(CassetteMatcher.shown(request.method)) \(shownURL(request.url))"]
        if candidates.isEmpty { lines.append("  (the cassette has no recorded interactions)") }
        let closest = candidates.sorted { ($0.matchCount, -$0.number) > ($1.matchCount, -$1.number) }.prefix(Self.listed)
        for candidate in closest {
            let verdicts = candidate.verdicts.map { verdict -> String in
                switch verdict.verdict {
                case .match: return "\(verdict.name) ✓"
                case .mismatch(nil): return "\(verdict.name) ✗"
                case .mismatch(let detail?): return "\(verdict.name) ✗ (\(detail))"
                }
            }
            var line = "  #\(candidate.number) \(CassetteMatcher.shown(candidate.method)) \(shownURL(candidate.pathAndQuery))"
            if !verdicts.isEmpty { line += " — " + verdicts.joined(separator: " ") }
            if candidate.alreadyPlayed, candidate.matchCount == candidate.verdicts.count {
                line += " — already played (allowPlaybackRepeats is off)"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// A URL on one line with control characters made visible, at most 200 characters.
    private func shownURL(_ url: String) -> String {
        let line = TerminalText.line(url)
        return line.count > 200 ? String(line.prefix(199)) + "…" : line
    }
}
