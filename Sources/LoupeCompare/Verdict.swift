/// What a comparison says of one group, worst first.
package enum Verdict: String, Sendable, Equatable, Comparable, CaseIterable, Codable {
    case regressed, gone, new, improved, unchanged

    package static func < (lhs: Verdict, rhs: Verdict) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
