/// Two texts compared line by line: the shortest edit script (Myers, through the standard library's
/// `difference(from:)`) as steps a renderer can lay out unified or side by side.
package struct LineDiff: Sendable, Equatable {
    /// One line of the aligned texts (indices are 0-based).
    package enum Step: Sendable, Equatable {
        case same(old: Int, new: Int)
        case removed(old: Int)
        case inserted(new: Int)
    }

    /// Above this many differing lines (after the common start and end are set aside) the middle is shown as all
    /// removed then all added: Myers' cost grows with lines × differences, and such texts share little anyway.
    package static let maximumAlignedLines = 4_000

    package let oldLines: [String]
    package let newLines: [String]
    package let steps: [Step]
    /// Whether the middle was too large to align (see ``maximumAlignedLines``).
    package let isCoarse: Bool

    package var removedCount: Int { steps.count { if case .removed = $0 { true } else { false } } }
    package var insertedCount: Int { steps.count { if case .inserted = $0 { true } else { false } } }
    package var isEmpty: Bool { removedCount == 0 && insertedCount == 0 }

    package init(old: String, new: String) {
        self.init(oldLines: Self.lines(old), newLines: Self.lines(new))
    }

    package init(oldLines: [String], newLines: [String]) {
        self.oldLines = oldLines
        self.newLines = newLines
        let prefix = zip(oldLines, newLines).prefix { $0 == $1 }.count
        let suffix = zip(oldLines[prefix...].reversed(), newLines[prefix...].reversed()).prefix { $0 == $1 }.count
        let oldMiddle = oldLines[prefix..<(oldLines.count - suffix)]
        let newMiddle = newLines[prefix..<(newLines.count - suffix)]
        var steps = (0..<prefix).map { Step.same(old: $0, new: $0) }
        isCoarse = oldMiddle.count + newMiddle.count > Self.maximumAlignedLines
        if isCoarse {
            steps += oldMiddle.indices.map { Step.removed(old: $0) } + newMiddle.indices.map { Step.inserted(new: $0) }
        } else {
            steps += Self.align(oldMiddle, newMiddle)
        }
        steps += (0..<suffix).map { Step.same(old: oldLines.count - suffix + $0, new: newLines.count - suffix + $0) }
        self.steps = steps
    }

    /// `text` split at line feeds, a CR before each dropped; a final line feed ends the last line, not a new one.
    package static func lines(_ text: String) -> [String] {
        // By bytes: "\r\n" is one Character, so a Character split would never see its "\n".
        var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The aligned steps of two slices (indices stay those of the whole texts); removals come before the
    /// insertions that replace them, as in a unified diff.
    private static func align(_ old: ArraySlice<String>, _ new: ArraySlice<String>) -> [Step] {
        let difference = new.difference(from: old)
        var removed = Set<Int>()
        var inserted = Set<Int>()
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removed.insert(old.startIndex + offset)
            case .insert(let offset, _, _): inserted.insert(new.startIndex + offset)
            }
        }
        var steps: [Step] = []
        var (i, j) = (old.startIndex, new.startIndex)
        while i < old.endIndex || j < new.endIndex {
            if i < old.endIndex, removed.contains(i) {
                steps.append(.removed(old: i))
                i += 1
            } else if j < new.endIndex, inserted.contains(j) {
                steps.append(.inserted(new: j))
                j += 1
            } else {
                steps.append(.same(old: i, new: j))
                i += 1
                j += 1
            }
        }
        return steps
    }
}
