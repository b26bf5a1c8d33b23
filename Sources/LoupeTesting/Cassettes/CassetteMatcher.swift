import Foundation
import LoupeTrace
import LoupeFormats

/// One way of telling whether a live request is a recorded one: method, URL, path, query, some headers, body, or a
/// closure of your own. A cassette takes a list of them and replays an interaction only when every one matches.
///
/// ```swift
/// let cassette = try Cassette(path: path, matching: [.method, .path, .query, .headers(["Accept"]), .body])
/// ```
///
/// Each matcher gives a ``Verdict``; a mismatch may carry a detail, recorded side first (`page=2 vs page=3`),
/// which the no-match error prints after the matcher's name.
public struct CassetteMatcher: Sendable {
    /// Whether one recorded request passes this matcher.
    public enum Verdict: Sendable, Hashable {
        /// It matches.
        case match
        /// It does not; the detail says how (`recorded vs live`), when the matcher can say.
        case mismatch(String?)

        /// Whether this is ``match``.
        public var isMatch: Bool { self == .match }
    }

    /// The name printed in verdicts (`method`, `query`).
    public let name: String
    private let judge: @Sendable (_ live: CassetteRequest, _ recorded: CassetteRequest) -> Verdict

    /// A matcher named `name` that judges a live request against a recorded one.
    public init(_ name: String, judge: @escaping @Sendable (_ live: CassetteRequest, _ recorded: CassetteRequest) -> Verdict) {
        self.name = name
        self.judge = judge
    }

    /// A matcher named `name` that matches when `matches(live, recorded)` is true.
    public static func custom(
        _ name: String, _ matches: @escaping @Sendable (_ live: CassetteRequest, _ recorded: CassetteRequest) -> Bool
    ) -> CassetteMatcher {
        CassetteMatcher(name) { live, recorded in matches(live, recorded) ? .match : .mismatch(nil) }
    }

    /// Judges `live` against `recorded`.
    public func verdict(live: CassetteRequest, recorded: CassetteRequest) -> Verdict {
        judge(live, recorded)
    }

    /// The same method (case-sensitive, as HTTP methods are).
    public static let method = CassetteMatcher("method") { live, recorded in
        compare(recorded.method, live.method)
    }

    /// The same absolute URL, byte for byte (scheme, host, port, path and query in order).
    public static let url = CassetteMatcher("url") { live, recorded in
        compare(recorded.url, live.url)
    }

    /// The same host and port (ignoring case): leave it out to replay a recording against another server.
    public static let host = CassetteMatcher("host") { live, recorded in
        compare(recorded.authority, live.authority)
    }

    /// The same path (as sent, percent-encoded), without the query.
    public static let path = CassetteMatcher("path") { live, recorded in
        compare(recorded.path, live.path)
    }

    /// The same query items in any order (names and values decoded; repeated items count).
    public static let query = CassetteMatcher("query") { live, recorded in
        let old = recorded.queryItems.map(Self.pair)
        let new = live.queryItems.map(Self.pair)
        guard old.sorted() != new.sorted() else { return .match }
        let onlyOld = Self.subtracting(new, from: old)
        let onlyNew = Self.subtracting(old, from: new)
        return .mismatch(shown(onlyOld.isEmpty ? "none" : onlyOld.joined(separator: "&"))
            + " vs " + shown(onlyNew.isEmpty ? "none" : onlyNew.joined(separator: "&")))
    }

    /// The same values, in order, for each of these headers (names in any case); a header absent on both sides
    /// matches.
    public static func headers(_ names: [String]) -> CassetteMatcher {
        CassetteMatcher("headers") { live, recorded in
            for name in names {
                let old = recorded.values(ofHeader: name)
                let new = live.values(ofHeader: name)
                guard old != new else { continue }
                func text(_ values: [String]) -> String { values.isEmpty ? "absent" : values.joined(separator: ", ") }
                return .mismatch(shown(name) + ": " + shown(text(old)) + " vs " + shown(text(new)))
            }
            return .match
        }
    }

    /// The same body: equal as JSON (key order, white space and number spelling such as `1.0` and `1` aside) when
    /// both are JSON, else byte for byte.
    public static let body = CassetteMatcher("body") { live, recorded in
        guard recorded.body != live.body else { return .match }
        return CassetteBodyComparison.verdict(recorded: recorded.body, live: live.body)
    }

    /// The same body, byte for byte.
    public static let bodyBytes = CassetteMatcher("body") { live, recorded in
        recorded.body == live.body ? .match : .mismatch(CassetteBodyComparison.sizes(recorded.body, live.body))
    }

    // MARK: Helpers

    private static func compare(_ recorded: String, _ live: String) -> Verdict {
        recorded == live ? .match : .mismatch(shown(recorded) + " vs " + shown(live))
    }

    private static func pair(_ item: URLQueryItem) -> String {
        item.value.map { item.name + "=" + $0 } ?? item.name
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

    /// Recorded data as a verdict shows it: on one line, control characters made visible, at most 60 characters.
    static func shown(_ text: String) -> String {
        let line = TerminalText.line(text)
        return line.count > 60 ? String(line.prefix(59)) + "…" : line
    }
}

extension Array where Element == CassetteMatcher {
    /// Method, path and query (in any order): the host is left out, so a recording made against one server
    /// replays for any other (a loopback server's port changes on every run).
    public static var `default`: [CassetteMatcher] { [.method, .path, .query] }
}
