import LoupeTrace

/// A part of the response to leave out of a diff (`--ignore`): `status`, `body`, `header:NAME` (`*` matches any
/// run of characters, case is ignored) or a JSONPath into a JSON body.
///
/// JSON paths take `.key`, `['key']`, `[3]`, the wildcards `.*` and `[*]`, and `..key` for a key at any depth:
/// `$.meta.generatedAt`, `$.items[*].id`, `$..requestId`. A pattern also covers everything below what it names
/// (`$.meta` covers `$.meta.generatedAt`); `body` covers every JSON path.
package struct DiffPattern: Sendable, Hashable, CustomStringConvertible {
    enum Selector: Sendable, Hashable {
        case key(String)
        case index(Int)
        case any
    }

    struct Segment: Sendable, Hashable {
        /// `..`: the selector may match at this depth or any below.
        var descendant: Bool
        var selector: Selector
    }

    enum Kind: Sendable, Hashable {
        case status
        case body
        case header(String)
        case json([Segment])
    }

    let kind: Kind
    /// The pattern as typed.
    package let description: String

    /// Parses `text`; a pattern that is none of the accepted forms throws, saying where it went wrong.
    package init(_ text: String) throws(DiffPatternError) {
        description = text
        switch text {
        case "status": kind = .status
        case "body": kind = .body
        case _ where text.lowercased().hasPrefix("header:"):
            let name = String(text.dropFirst("header:".count))
            guard !name.isEmpty else { throw DiffPatternError(pattern: text, reason: "expected a header name after 'header:'") }
            kind = .header(name.lowercased())
        case _ where text.hasPrefix("$"):
            var parser = DiffPatternParser(text)
            kind = .json(try parser.segments())
        default:
            throw DiffPatternError(pattern: text, reason: "expected a JSON path ($.a.b, $.items[*].id), header:NAME, status or body")
        }
    }

    /// Whether `location` is what this pattern names or lies inside it.
    package func matches(_ location: DiffLocation) -> Bool {
        switch (kind, location) {
        case (.status, .status), (.body, .body), (.body, .json): true
        case (.header(let glob), .header(let name)): Self.glob(Array(glob.unicodeScalars), matches: Array(name.lowercased().unicodeScalars))
        case (.json(let segments), .json(let path)): Self.match(segments[...], path.components[...])
        // A stream's messages: `body` is every payload, a JSON path a place in every JSON payload.
        case (.body, .message): true
        case (.json(let segments), .message(_, let path?)): Self.match(segments[...], path.components[...])
        default: false
        }
    }

    /// Whether the segments match a prefix of the components.
    private static func match(_ segments: ArraySlice<Segment>, _ components: ArraySlice<JSONPath.Component>) -> Bool {
        guard let segment = segments.first else { return true }
        let rest = segments.dropFirst()
        if segment.descendant {
            for start in components.indices where segment.selector.matches(components[start]) {
                if match(rest, components[(start + 1)...]) { return true }
            }
            return false
        }
        guard let component = components.first, segment.selector.matches(component) else { return false }
        return match(rest, components.dropFirst())
    }

    /// `*` matches any run of characters: the greedy matcher with one backtrack point, at worst pattern × text
    /// steps, never exponential however many stars.
    static func glob(_ pattern: [Unicode.Scalar], matches text: [Unicode.Scalar]) -> Bool {
        var (p, t) = (0, 0)
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] != "*", pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

extension DiffPattern.Selector {
    func matches(_ component: JSONPath.Component) -> Bool {
        switch (self, component) {
        case (.any, _): true
        case (.key(let key), .key(let other)): key == other
        case (.index(let index), .index(let other)): index == other
        default: false
        }
    }
}

/// Why an `--ignore` pattern was refused.
package struct DiffPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    package var pattern: String
    package var reason: String
    package var description: String { "'\(pattern)': \(reason)" }
}
