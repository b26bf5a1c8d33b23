/// Why no recording answered a request: what the 404's body and the request's line say.
package struct ServeMiss: Sendable, Hashable {
    /// The recording closest to the request and how it compares, criterion by criterion.
    package struct Closest: Sendable, Hashable {
        /// 1-based, in recorded order.
        package var number: Int
        package var method: String
        package var pathAndQuery: String
        package var verdicts: [ServeMatching.Verdict]
    }

    package enum Reason: Sendable, Hashable {
        /// Nothing is recorded at all.
        case empty
        /// No recording matches; the closest one, when any shares the method or the path.
        case noMatch(Closest?)
        /// Recordings match, but each was served and `--repeat miss` serves none again.
        case usedUp(Closest, count: Int)
    }

    package var method: String
    package var pathAndQuery: String
    package var reason: Reason

    /// The words after `miss` on the request's line: `closest #3 (query ✗ page=2 vs page=3)`.
    package var short: String {
        switch reason {
        case .empty: "no recordings"
        case .noMatch(nil): "no recording with this method or path"
        case .noMatch(let closest?): "closest #\(closest.number) (" + Self.failed(closest.verdicts) + ")"
        case .usedUp(_, let count): "its \(count == 1 ? "recording was" : "\(count) recordings were") all served (--repeat miss)"
        }
    }

    /// The 404's body: a line naming the request, then the closest recording and every criterion's verdict.
    package var message: String {
        var lines = ["loupe serve: no recording matches \(ServeMatching.shown(method)) \(ServeMatching.shown(pathAndQuery))"]
        switch reason {
        case .empty:
            lines.append("  (nothing is recorded)")
        case .noMatch(nil):
            lines.append("  (no recording has this method or this path)")
        case .noMatch(let closest?):
            lines.append("  closest: " + Self.describe(closest))
        case .usedUp(let closest, let count):
            lines.append("  \(count == 1 ? "its recording was" : "its \(count) recordings were") all served, and --repeat miss serves none again (POST /__loupe/reset starts over)")
            lines.append("  last: " + Self.describe(closest))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func describe(_ closest: Closest) -> String {
        "#\(closest.number) \(ServeMatching.shown(closest.method)) \(ServeMatching.shown(closest.pathAndQuery)) — "
            + closest.verdicts.map { verdict in
                verdict.mismatch.map { "\(verdict.name) ✗ (\($0))" } ?? "\(verdict.name) ✓"
            }.joined(separator: " ")
    }

    private static func failed(_ verdicts: [ServeMatching.Verdict]) -> String {
        verdicts.compactMap { verdict in verdict.mismatch.map { "\(verdict.name) ✗ \($0)" } }.joined(separator: "; ")
    }
}
