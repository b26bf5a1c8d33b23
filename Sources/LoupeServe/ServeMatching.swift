import Foundation
import LoupeReplay
import LoupeTrace

/// How a live request is compared with a recorded one, in the documented order: method, path, query (items in any
/// order), body (JSON by value, `--ignore` paths left out; other bodies byte for byte), then the chosen headers.
package struct ServeMatching: Sendable {
    /// One criterion's verdict on one recording: `nil` detail when it matches.
    package struct Verdict: Sendable, Hashable {
        package var name: String
        /// Why it does not match, recorded side first (`page=2 vs page=3`); `nil` when it matches.
        package var mismatch: String?
        package var matches: Bool { mismatch == nil }
    }

    /// Parts of a JSON body left out of the comparison (the same `--ignore` syntax as `replay --diff`).
    package var ignore: [DiffPattern]
    /// Headers whose values must be equal (names in any case); a header absent on both sides matches.
    package var headers: [String]

    package init(ignore: [DiffPattern] = [], headers: [String] = []) {
        self.ignore = ignore
        self.headers = headers
    }

    /// Every criterion's verdict, in order; method and path first, so a caller that filed recordings by method and
    /// path (the index) only needs ``matches(_:_:)`` for the rest.
    package func verdicts(live: ServeRequest, recorded: ServeRequest) -> [Verdict] {
        [
            Verdict(name: "method", mismatch: Self.compare(recorded.method, live.method)),
            Verdict(name: "path", mismatch: Self.compare(recorded.path, live.path)),
            Verdict(name: "query", mismatch: queryMismatch(live, recorded)),
            Verdict(name: "body", mismatch: bodyMismatch(live.body, recorded.body)),
            Verdict(name: "headers", mismatch: headerMismatch(live, recorded)),
        ]
    }

    /// Whether query, body and headers match (method and path already equal).
    package func matches(_ live: ServeRequest, _ recorded: ServeRequest) -> Bool {
        (live.query == recorded.query || queryMismatch(live, recorded) == nil)
            && bodyMismatch(live.body, recorded.body) == nil && headerMismatch(live, recorded) == nil
    }

    private func queryMismatch(_ live: ServeRequest, _ recorded: ServeRequest) -> String? {
        let old = recorded.queryItems
        let new = live.queryItems
        guard old != new else { return nil }
        let onlyOld = Self.subtracting(new, from: old)
        let onlyNew = Self.subtracting(old, from: new)
        return Self.shown(onlyOld.isEmpty ? "none" : onlyOld.joined(separator: "&"))
            + " vs " + Self.shown(onlyNew.isEmpty ? "none" : onlyNew.joined(separator: "&"))
    }

    private func bodyMismatch(_ live: Data, _ recorded: Data) -> String? {
        if live == recorded || ignore.contains(where: { $0.matches(.body) }) { return nil }
        guard let old = JSONParser.parse(recorded), let new = JSONParser.parse(live) else {
            return recorded.count == live.count
                ? "\(Self.bytes(recorded.count)), contents differ" : "\(Self.bytes(recorded.count)) vs \(Self.bytes(live.count))"
        }
        let left = JSONDiff.differences(old, new).filter { difference in
            !ignore.contains { $0.matches(difference.location) }
        }
        guard let first = left.first else { return nil }
        let more = left.count > 1 ? " (and \(left.count - 1) more)" : ""
        let location = Self.shown(first.location.description)
        switch first.change {
        case .changed(let from, let to): return location + ": " + Self.shown(from) + " vs " + Self.shown(to) + more
        case .added(let value): return location + ": absent vs " + Self.shown(value) + more
        case .removed(let value): return location + ": " + Self.shown(value) + " vs absent" + more
        case .lines, .bytes: return Self.shown(first.description) + more
        }
    }

    private func headerMismatch(_ live: ServeRequest, _ recorded: ServeRequest) -> String? {
        for name in headers {
            let old = recorded.values(ofHeader: name)
            let new = live.values(ofHeader: name)
            guard old != new else { continue }
            func text(_ values: [String]) -> String { values.isEmpty ? "absent" : values.joined(separator: ", ") }
            return Self.shown(name) + ": " + Self.shown(text(old)) + " vs " + Self.shown(text(new))
        }
        return nil
    }

    private static func compare(_ recorded: String, _ live: String) -> String? {
        recorded == live ? nil : shown(recorded) + " vs " + shown(live)
    }

    /// `items` without one occurrence of each of `removed`, order kept.
    private static func subtracting(_ removed: [String], from items: [String]) -> [String] {
        var left = Dictionary(removed.map { ($0, 1) }, uniquingKeysWith: +)
        return items.filter { item in
            guard let count = left[item], count > 0 else { return true }
            left[item] = count - 1
            return false
        }
    }

    /// Recorded data as a verdict shows it: one line, control characters made visible, at most 60 characters.
    static func shown(_ text: String) -> String {
        let line = TerminalText.line(text)
        return line.count > 60 ? String(line.prefix(59)) + "…" : line
    }

    private static func bytes(_ count: Int) -> String { "\(count) byte\(count == 1 ? "" : "s")" }
}
