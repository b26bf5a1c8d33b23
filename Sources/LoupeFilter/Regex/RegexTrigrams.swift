/// The trigrams every text a regex matches must contain, for the store's search index (SQLite FTS5's `trigram`
/// tokenizer, which folds case): the index's rows holding all of them are the only candidates, which the regex
/// itself then confirms.
///
/// Only what is certain counts: runs of literal scalars that every match consumes one after another (through
/// groups and repetitions of at least one, never across `|`, classes, `.` or assertions). A trigram is kept only
/// when its three scalars are printable ASCII, so the text and the index agree on them whatever surrounds them
/// (invalid UTF-8 next to them, a JSON escape, a folding SQLite does not share); a caseless `i` is left out, since
/// the dotless `ı` matches it here but SQLite's folding keeps it apart. Fewer trigrams only mean more candidates,
/// never a missed row.
enum RegexTrigrams {
    static func required(_ node: RegexNode) -> [String] {
        var walk = Walk()
        walk.visit(node)
        walk.flush()
        return walk.found.sorted()
    }

    /// Whether a literal scalar can take part in an index trigram.
    static func indexable(_ value: UInt32, caseless: Bool) -> Bool {
        guard (0x20...0x7E).contains(value) else { return false }
        return !(caseless && (value == 0x69 || value == 0x49))
    }

    private struct Walk {
        var found = Set<String>()
        var run: [UInt8] = []

        mutating func visit(_ node: RegexNode) {
            switch node {
            case .empty:
                break
            case .set(let set):
                guard !set.negated, set.items.count == 1, case .range(let low, let high) = set.items[0], low == high,
                      RegexTrigrams.indexable(low, caseless: set.caseless)
                else { return flush() }
                // The index folds ASCII case: the lower case stands for both.
                run.append(UInt8((0x41...0x5A).contains(low) ? low + 0x20 : low))
            case .concatenation(let children):
                for child in children { visit(child) }
            case .repetition(let child, let min, let max):
                if min == 1, max == 1 { return visit(child) }
                flush()
                if min >= 1 { visit(child) }
                flush()
            case .alternation(let children) where children.count == 1:
                visit(children[0])
            case .alternation, .assertion, .anyIncludingNewlines:
                flush()
            }
        }

        mutating func flush() {
            defer { run.removeAll(keepingCapacity: true) }
            guard run.count >= 3 else { return }
            for start in 0...(run.count - 3) {
                found.insert(String(decoding: run[start..<(start + 3)], as: UTF8.self))
            }
        }
    }
}
