/// Refuses the TOML that toml++ 3.4.0 (inside TOMLKit 0.6.0) cannot take safely, before it reaches the parser.
/// Every TOML file the project reads goes through ``check(_:)`` first (`keys.toml` and the rules file).
///
/// Malformed TOML that trips an assertion (an abort in debug builds, undefined behaviour with `NDEBUG`) instead of
/// reporting a parse error:
///
/// - a table header whose name starts with anything but a key character or a quote: `[é]`, `[.]`, `[[[a]]]`,
///   `[&` (toml++ issue #294, fixed upstream by PR #301, not yet in a release TOMLKit uses);
/// - a `}` where a list element should start: `a = [}`, `a = [1, }`.
///
/// And valid TOML whose shape is deeper than anything Loupe reads: toml++ builds (and TOMLKit converts and frees)
/// one nested table per dotted key part and one level per `[` or `{`, recursively, so 30,000 parts in 60 KB (under
/// the size cap) overflow the stack (SIGSEGV). A byte cap bounds the length, not the depth: hence
/// ``maxKeyParts`` and ``maxNesting``, far above any real file (keys.toml needs two levels).
///
/// Valid TOML of a sensible shape is never refused. The scan follows strings and comments so that the same
/// characters inside them are left alone.
package enum TOMLGuard {
    /// Most dotted parts in one key or table header (`a.b.c` has three).
    package static let maxKeyParts = 16
    /// Most lists and inline tables open inside one another in a value.
    package static let maxNesting = 16

    package static func check(_ text: String) throws(ConfigFileError) {
        var scanner = Scanner(Array(text.unicodeScalars))
        try scanner.run()
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1
        /// Open `[` (lists) and `{` (inline tables) inside a value.
        var open: [Unicode.Scalar] = []
        var atLineStart = true
        var inHeader = false
        /// Just after a list's `[` or `,`: the next significant character starts an element.
        var expectingElement = false
        /// Inside a key (of a header, a key/value line or an inline table), before its `=` or `]`.
        var inKey = false
        /// Just after an inline table's `{` or `,`: the next significant character starts a key.
        var expectingKey = false
        /// Dotted parts of the key being read.
        var keyParts = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        mutating func run() throws(ConfigFileError) {
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                switch scalar {
                case "\n":
                    line += 1
                    inHeader = false
                    if open.isEmpty {
                        atLineStart = true
                        inKey = false
                    }
                    continue
                case " ", "\t", "\r":
                    continue
                case "#":
                    skipComment()
                    continue
                default:
                    break
                }
                if expectingElement, scalar == "}" {
                    throw ConfigFileError(line: line, "expected a key name or ']' in this list, saw '}'")
                }
                expectingElement = false
                if atLineStart, open.isEmpty, scalar == "[" {
                    try checkHeader()
                    atLineStart = false
                    inHeader = true
                    startKey()
                    continue
                }
                if (atLineStart && open.isEmpty) || expectingKey { startKey() }
                atLineStart = false
                expectingKey = false
                switch scalar {
                case "\"", "'": skipString(quote: scalar)
                case "." where inKey:
                    keyParts += 1
                    if keyParts > TOMLGuard.maxKeyParts {
                        throw ConfigFileError(line: line, "a key or [section] name of more than \(TOMLGuard.maxKeyParts) dotted parts")
                    }
                case "=" where inKey, "]" where inKey && inHeader: inKey = false
                case "[" where !inHeader:
                    try enter("[")
                    expectingElement = true
                case "]" where !inHeader && open.last == "[": open.removeLast()
                case "{":
                    try enter("{")
                    expectingKey = true
                case "}" where open.last == "{": open.removeLast()
                case "," where open.last == "[": expectingElement = true
                case "," where open.last == "{": expectingKey = true
                default: break
                }
            }
        }

        private mutating func startKey() {
            inKey = true
            keyParts = 1
        }

        /// Opens a list or an inline table, refusing one nested deeper than ``maxNesting``.
        private mutating func enter(_ bracket: Unicode.Scalar) throws(ConfigFileError) {
            open.append(bracket)
            if open.count > TOMLGuard.maxNesting {
                throw ConfigFileError(line: line, "lists and inline tables nested more than \(TOMLGuard.maxNesting) deep")
            }
        }

        /// After a header's `[`: an optional second `[`, blanks, then a key character, a quote or `]`.
        private func checkHeader() throws(ConfigFileError) {
            var position = index
            if position < scalars.count, scalars[position] == "[" { position += 1 }
            while position < scalars.count, scalars[position] == " " || scalars[position] == "\t" { position += 1 }
            guard position < scalars.count else { return }
            let next = scalars[position]
            let fine = next.isASCII && (next.properties.isAlphabetic || ("0"..."9").contains(next)
                || next == "-" || next == "_" || next == "\"" || next == "'" || next == "]")
            if !fine {
                throw ConfigFileError(line: line, "a [section] name must be letters, digits, '-' and '_', or in quotes")
            }
        }

        private mutating func skipComment() {
            while index < scalars.count, scalars[index] != "\n" { index += 1 }
        }

        /// Past the string that opened with `quote` (one `"`/`'` already read); multi-line strings count lines.
        private mutating func skipString(quote: Unicode.Scalar) {
            let multiLine = index + 1 < scalars.count && scalars[index] == quote && scalars[index + 1] == quote
            if multiLine { index += 2 }
            while index < scalars.count {
                let scalar = scalars[index]
                if scalar == "\\", quote == "\"" {
                    if index + 1 < scalars.count, scalars[index + 1] == "\n" { line += 1 }
                    index += 2
                    continue
                }
                if scalar == "\n" {
                    // A single-line string cannot span lines: let the parser report it, and rescan from here.
                    guard multiLine else { return }
                    line += 1
                }
                index += 1
                if scalar == quote {
                    guard multiLine else { return }
                    if index + 1 < scalars.count, scalars[index] == quote, scalars[index + 1] == quote {
                        index += 2
                        return
                    }
                }
            }
        }
    }
}
