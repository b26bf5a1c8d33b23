import Foundation

/// One way B's responses differ in shape from A's at one path.
package struct ShapeDrift: Sendable, Equatable, Comparable {
    package enum Kind: String, Sendable, Equatable, Comparable {
        case removed, changedType = "changed-type", nowNull = "now-null", added

        /// Removed fields, changed types and new nulls break a client that relied on A; an added field does not.
        package var isBreaking: Bool { self != .added }

        package static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.order < rhs.order }
        private var order: Int { [.removed: 0, .changedType: 1, .nowNull: 2, .added: 3][self] ?? 4 }
    }

    package var kind: Kind
    package var path: String
    /// The types at the path, A's then B's (for changed types).
    package var before: [ResponseShape.Kind] = []
    package var after: [ResponseShape.Kind] = []

    /// `removed $.user.email`, `changed type $.total: number → string`.
    package var description: String {
        switch kind {
        case .removed: "removed \(path)"
        case .added: "added \(path)"
        case .nowNull: "now null \(path)"
        case .changedType:
            "changed type \(path): \(before.map(\.name).joined(separator: "|")) → \(after.map(\.name).joined(separator: "|"))"
        }
    }

    package static func < (lhs: ShapeDrift, rhs: ShapeDrift) -> Bool {
        (lhs.kind, lhs.path) < (rhs.kind, rhs.path)
    }

    /// How B's shape drifted from A's. A field is called removed or added only when the other side, at the rate
    /// this side had it, would have shown it with probability at least `1 − alpha` (`(1 − rate)^n < alpha`): an
    /// optional field seen in a few of A's responses is not "removed" from a handful of B's. Only the outermost
    /// path of a removed or added subtree is named.
    package static func drifts(from a: ResponseShape, to b: ResponseShape, alpha: Double) -> [ShapeDrift] {
        guard a.documents > 0, b.documents > 0 else { return [] }
        func surely(_ rate: Double, over documents: Int) -> Bool {
            rate >= 1 || Double(documents) * log1p(-min(rate, 1)) < log(alpha)
        }
        func parent(_ path: String) -> String? {
            if path.hasSuffix("[*]") { return String(path.dropLast(3)) }
            if path.hasSuffix("']"), let open = path.range(of: "['", options: .backwards) { return String(path[..<open.lowerBound]) }
            guard let dot = path.lastIndex(of: "."), path != "$" else { return nil }
            return String(path[..<dot])
        }
        var drifts: [ShapeDrift] = []
        var missing: Set<String> = [], extra: Set<String> = []
        for (path, facts) in a.paths where b.paths[path] == nil
            && surely(Double(facts.documents) / Double(a.documents), over: b.documents) {
            missing.insert(path)
        }
        for (path, facts) in b.paths where a.paths[path] == nil
            && surely(Double(facts.documents) / Double(b.documents), over: a.documents) {
            extra.insert(path)
        }
        // A path whose parent is itself missing (or extra) is part of that drift. The parent may also be an array
        // or object that lost its members: it is still named by the members.
        func outermost(_ set: Set<String>) -> [String] {
            set.filter { path in parent(path).map { !set.contains($0) } ?? true }.sorted()
        }
        var retyped: [String] = []
        for (path, before) in a.paths {
            guard let after = b.paths[path] else { continue }
            let newKinds = ResponseShape.Kind.allCases.filter { kind in
                before.kinds[kind.rawValue] == 0 && after.kinds[kind.rawValue] > 0
                    && surely(min(1, Double(after.kinds[kind.rawValue]) / Double(max(1, after.documents))), over: before.documents)
            }
            if !newKinds.isEmpty { retyped.append(path) }
            if newKinds.contains(.null) { drifts.append(ShapeDrift(kind: .nowNull, path: path)) }
            if newKinds.contains(where: { $0 != .null }) {
                drifts.append(ShapeDrift(kind: .changedType, path: path, before: before.seenKinds.filter { $0 != .null },
                                         after: after.seenKinds.filter { $0 != .null }))
            }
        }
        // Members of a value that turned null or changed type went with it: the change is named once, there.
        func underRetyped(_ path: String) -> Bool {
            retyped.contains { path.hasPrefix($0 + ".") || path.hasPrefix($0 + "[") }
        }
        drifts += outermost(missing).filter { !underRetyped($0) }.map { ShapeDrift(kind: .removed, path: $0) }
        drifts += outermost(extra).filter { !underRetyped($0) }.map { ShapeDrift(kind: .added, path: $0) }
        return drifts.sorted()
    }
}
