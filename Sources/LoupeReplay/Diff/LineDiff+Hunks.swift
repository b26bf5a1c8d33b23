import LoupeTrace

extension LineDiff {
    /// A run of changes with the unchanged lines around them, as in `diff -u`.
    package struct Hunk: Sendable, Equatable {
        /// 1-based first line in each text (the line before, when the hunk has no lines of that text).
        package var oldStart: Int
        package var oldCount: Int
        package var newStart: Int
        package var newCount: Int
        /// The steps the hunk covers.
        package var steps: ArraySlice<Step>
        /// The `@@ -3,2 +3,2 @@` line, then each line with its ` `, `-` or `+`.
        package var lines: [String]
    }

    /// The changes grouped into hunks with `context` unchanged lines around each; changes closer than
    /// `2 × context` lines share a hunk.
    package func hunks(context: Int = 3) -> [Hunk] {
        let changed = steps.indices.filter { if case .same = steps[$0] { false } else { true } }
        guard let first = changed.first else { return [] }
        var ranges: [Range<Int>] = []
        var start = max(0, first - context)
        var end = min(steps.count, first + context + 1)
        for index in changed.dropFirst() {
            if index - context <= end {
                end = min(steps.count, index + context + 1)
            } else {
                ranges.append(start..<end)
                start = index - context
                end = min(steps.count, index + context + 1)
            }
        }
        ranges.append(start..<end)
        return ranges.map(hunk)
    }

    private func hunk(_ range: Range<Int>) -> Hunk {
        var oldBefore = 0
        var newBefore = 0
        for step in steps[..<range.lowerBound] {
            switch step {
            case .same: oldBefore += 1; newBefore += 1
            case .removed: oldBefore += 1
            case .inserted: newBefore += 1
            }
        }
        var body: [String] = []
        var oldCount = 0
        var newCount = 0
        for step in steps[range] {
            switch step {
            case .same(let old, _): body.append(" " + oldLines[old]); oldCount += 1; newCount += 1
            case .removed(let old): body.append("-" + oldLines[old]); oldCount += 1
            case .inserted(let new): body.append("+" + newLines[new]); newCount += 1
            }
        }
        let oldStart = oldCount == 0 ? oldBefore : oldBefore + 1
        let newStart = newCount == 0 ? newBefore : newBefore + 1
        let header = "@@ -\(Self.span(oldStart, oldCount)) +\(Self.span(newStart, newCount)) @@"
        return Hunk(oldStart: oldStart, oldCount: oldCount, newStart: newStart, newCount: newCount,
                    steps: steps[range], lines: [header] + body)
    }

    /// `3` for one line, `3,2` otherwise (GNU diff's form).
    private static func span(_ start: Int, _ count: Int) -> String {
        count == 1 ? "\(start)" : "\(start),\(count)"
    }
}
