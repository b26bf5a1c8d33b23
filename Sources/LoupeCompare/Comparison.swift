import Foundation

/// Two recordings compared group by group (operations, then hosts), worst first: `loupe compare` and the
/// inspector's compare screen print this.
package struct Comparison: Sendable {
    package var thresholds: CompareThresholds
    package var totalA: Int
    package var totalB: Int
    package var operations: [GroupComparison]
    package var hosts: [GroupComparison]
    /// Whether two baseline runs taught the noise.
    package var learnedNoise: Bool

    /// Compares `a` with `b`; `baseline`, two runs of the same code, gives each group's noise (Diffy's way: what
    /// differs between two runs of the same thing is not a change).
    package init(a: SideFigures, b: SideFigures, thresholds: CompareThresholds = CompareThresholds(),
                 baseline: (SideFigures, SideFigures)? = nil) {
        self.thresholds = thresholds
        totalA = a.total
        totalB = b.total
        learnedNoise = baseline != nil
        func compare(_ kind: GroupComparison.Kind, _ sideA: [String: GroupFigures], _ sideB: [String: GroupFigures],
                     _ noiseA: [String: GroupFigures]?, _ noiseB: [String: GroupFigures]?) -> [GroupComparison] {
            let names = Set(sideA.keys).union(sideB.keys)
            return names.map { name in
                let noise = noiseA.flatMap { noiseA in
                    noiseB.map { noiseB in
                        GroupComparison.compare(kind: kind, name: name, a: noiseA[name], b: noiseB[name],
                                                thresholds: CompareThresholds(latency: 0, errorRatePoints: 0, alpha: thresholds.alpha),
                                                groups: names.count)
                    }
                }
                return GroupComparison.compare(kind: kind, name: name, a: sideA[name], b: sideB[name],
                                               thresholds: thresholds, groups: names.count, noise: noise)
            }.sorted(by: Self.worstFirst)
        }
        operations = compare(.operation, a.operations, b.operations, baseline?.0.operations, baseline?.1.operations)
        hosts = compare(.host, a.hosts, b.hosts, baseline?.0.hosts, baseline?.1.hosts)
    }

    /// By verdict (regressed first), then by how large the change, then by name.
    static func worstFirst(_ x: GroupComparison, _ y: GroupComparison) -> Bool {
        if x.verdict != y.verdict { return x.verdict < y.verdict }
        if x.severity != y.severity { return x.severity > y.severity }
        return x.name < y.name
    }

    /// Whether any group regressed: the command's exit 1.
    package var hasRegression: Bool { (operations + hosts).contains { $0.verdict == .regressed } }

    /// How many groups of `kind` have each verdict.
    package func tally(_ groups: [GroupComparison]) -> [Verdict: Int] {
        Dictionary(grouping: groups, by: \.verdict).mapValues(\.count)
    }
}
