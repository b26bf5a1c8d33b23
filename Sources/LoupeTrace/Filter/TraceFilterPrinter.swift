/// Writes a ``TraceFilter`` back as text that parses to an equal filter (the canonical form the TUI shows).
package enum TraceFilterPrinter {
    static func text(_ filter: TraceFilter) -> String {
        switch filter {
        case .method(let method): "~m " + quote(method)
        case .status(let range): "~c " + status(range)
        case .host(let host): "~d " + quote(host)
        case .url(let pattern): "~u " + quote(pattern.source)
        case .header(let pattern): "~h " + quote(pattern.source)
        case .body(let pattern): "~b " + quote(pattern.source)
        case .requestBody(let pattern): "~bq " + quote(pattern.source)
        case .responseBody(let pattern): "~bs " + quote(pattern.source)
        case .operation(let name): "~op " + quote(name)
        case .message(let pattern): "~msg " + quote(pattern.source)
        case .errorText(let pattern): "~err " + quote(pattern.source)
        // Swift prints the shortest text that reads back as the same Double.
        case .duration(let comparison): "~dur " + comparison.op.rawValue + "\(comparison.value)s"
        case .attempts(let comparison): "~att " + comparison.op.rawValue + "\(comparison.value)"
        case .circuit(let match): "~cb " + match.rawValue
        case .error: "~e"
        case .replay: "~replay"
        case .served: "~served"
        case .source(let app): "~src " + quote(app)
        case .rule(let name): rule(name)
        case .grpc(let status): status.map { "~gs " + GRPCStatusName.name($0) } ?? "~grpc"
        case .drift(let kind): kind.map { "~drift " + quote($0) } ?? "~drift"
        case .since(let instant): "~since " + instant.description
        case .until(let instant): "~until " + instant.description
        // Never parsed: only a viewer builds it, and shows the text it was typed as.
        case .exchanges(let ids): "(\(ids.count) exchanges)"
        case .not(let inner): "!" + grouped(inner, unless: !isBinary(inner))
        case .and, .or: chain(filter)
        }
    }

    /// `~rule [name]`, out of line: a closure in `text` would grow its recursive frame.
    @inline(never)
    private static func rule(_ name: String?) -> String {
        guard let name else { return "~rule" }
        return "~rule " + quote(name)
    }

    /// `a & b & c` as `.and(.and(a, b), c)`: the left spine is walked in a loop, so a long chain costs no stack.
    /// A right operand of the same operator is bracketed, so the text parses back to the same tree.
    private static func chain(_ filter: TraceFilter) -> String {
        var rights: [TraceFilter] = []
        var first = filter
        let isAnd = if case .and = filter { true } else { false }
        while true {
            switch first {
            case .and(let left, let right) where isAnd, .or(let left, let right) where !isAnd:
                rights.append(right)
                first = left
                continue
            default: break
            }
            break
        }
        var text = isAnd ? grouped(first, unless: !isOr(first)) : self.text(first)
        for right in rights.reversed() {
            text += isAnd ? " & " + grouped(right, unless: !isBinary(right)) : " | " + grouped(right, unless: !isOr(right))
        }
        return text
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

    /// Whether `character` ends a bare argument (the parser's rule, which quoting follows).
    package static func endsArgument(_ character: Character) -> Bool {
        character.isWhitespace || character == "(" || character == ")" || character == "&" || character == "|"
    }

    /// Quotes an argument when it would not read back as one bare word.
    static func quote(_ text: String) -> String {
        let bare = !text.isEmpty && text.first != "\"" && text.first != "'"
            && !text.contains(where: endsArgument)
        guard !bare else { return text }
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
