import LoupeTrace
import LoupeFilter

/// What `/` finds in the exchanges list: the text anywhere in the URL, or as the method or operation, ignoring case.
enum ExchangeSearch {
    /// The filter that finds `text`; `nil` for empty text.
    static func filter(for text: String) -> TraceFilter? {
        guard !text.isEmpty, let pattern = try? TextPattern(escaped(text), ignoresCase: true) else { return nil }
        var filter = TraceFilter.url(pattern)
        filter = .or(filter, .method(text.uppercased()))
        if !text.contains(where: \.isWhitespace) { filter = .or(filter, .operation(text)) }
        return filter
    }

    /// `text` with every regex metacharacter escaped, so it matches literally.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// Where `text` occurs in `line`, ignoring case, as character offsets.
    static func ranges(of text: String, in line: String) -> [Range<Int>] {
        guard !text.isEmpty else { return [] }
        let haystack = Array(line.lowercased()), needle = Array(text.lowercased())
        guard haystack.count == line.count, needle.count <= haystack.count else { return [] }
        var ranges: [Range<Int>] = []
        var start = 0
        while start + needle.count <= haystack.count {
            if Array(haystack[start..<(start + needle.count)]) == needle {
                ranges.append(start..<(start + needle.count))
                start += needle.count
            } else {
                start += 1
            }
        }
        return ranges
    }
}
