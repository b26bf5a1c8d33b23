/// Writes a ``TraceFilter`` back as text that parses to an equal filter (the canonical form the inspector shows).
enum TraceFilterPrinter {
    static func text(_ filter: TraceFilter) -> String {
        switch filter {
        case .method(let method): "~m " + quote(method)
        case .status(let range): "~c " + status(range)
        case .host(let host): "~d " + quote(host)
        case .url(let pattern): "~u " + quote(pattern.source)
        case .header(let pattern): "~h " + quote(pattern.source)
        case .body(let pattern): "~b " + quote(pattern.source)
        case .operation(let name): "~op " + quote(name)
        // Swift prints the shortest text that reads back as the same Double.
        case .duration(let comparison): "~dur " + comparison.op.rawValue + "\(comparison.value)s"
        case .attempts(let comparison): "~att " + comparison.op.rawValue + "\(comparison.value)"
        case .circuit(let match): "~cb " + match.rawValue
        case .error: "~e"
        case .replay: "~replay"
        case .not(let inner): "!" + grouped(inner, unless: !isBinary(inner))
        case .and(let left, let right):
            grouped(left, unless: !isOr(left)) + " & " + grouped(right, unless: !isBinary(right))
        case .or(let left, let right):
            text(left) + " | " + grouped(right, unless: !isOr(right))
        }
    }

    private static func status(_ range: ClosedRange<Int>) -> String {
        if range.lowerBound == range.upperBound { return String(range.lowerBound) }
        if range.lowerBound >= 100, range.lowerBound % 100 == 0, range.upperBound == range.lowerBound + 99 {
            return "\(range.lowerBound / 100)xx"
        }
        return "\(range.lowerBound)-\(range.upperBound)"
    }

    private static func grouped(_ filter: TraceFilter, unless bare: Bool) -> String {
        bare ? text(filter) : "(" + text(filter) + ")"
    }

    private static func isBinary(_ filter: TraceFilter) -> Bool {
        switch filter {
        case .and, .or: true
        default: false
        }
    }

    private static func isOr(_ filter: TraceFilter) -> Bool {
        if case .or = filter { return true }
        return false
    }

    /// Quotes an argument when it would not read back as one bare word.
    static func quote(_ text: String) -> String {
        let bare = !text.isEmpty && text.first != "\"" && text.first != "'"
            && !text.contains(where: TraceFilterParser.endsArgument)
        guard !bare else { return text }
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
