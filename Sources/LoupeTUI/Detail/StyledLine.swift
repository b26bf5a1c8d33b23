/// One line of styled text: what the detail view is made of, before it is wrapped and drawn.
package struct StyledLine: Hashable, Sendable {
    /// A run of text in one style.
    package struct Span: Hashable, Sendable {
        package var text: String
        package var style: Style
        package init(_ text: String, _ style: Style = .normal) {
            self.text = text
            self.style = style
        }
    }

    /// The runs, left to right.
    package var spans: [Span]

    /// A line of `spans`.
    package init(_ spans: [Span]) {
        self.spans = spans
    }

    /// A line of `text` in one `style`.
    package init(_ text: String, style: Style = .normal) {
        self.spans = [Span(text, style)]
    }

    /// An empty line.
    package static let empty = StyledLine([])

    /// The plain text.
    package var text: String { spans.map(\.text).joined() }

    /// The line cut into lines of at most `width` columns; continuation lines keep the line's indent plus two.
    package func wrapped(to width: Int) -> [StyledLine] {
        guard width > 0, DisplayWidth.of(text) > width else { return [self] }
        let leading = text.prefix { $0 == " " }.count
        let indent = min(leading + 2, width / 2)
        var lines: [StyledLine] = []
        var current: [Span] = []
        var column = 0
        for span in spans {
            var piece = ""
            for character in span.text {
                let characterWidth = DisplayWidth.of(character)
                if column + characterWidth > width, column > indent {
                    if !piece.isEmpty { current.append(Span(piece, span.style)) }
                    lines.append(StyledLine(current))
                    current = [Span(String(repeating: " ", count: indent))]
                    piece = ""
                    column = indent
                }
                piece.append(character)
                column += characterWidth
            }
            if !piece.isEmpty { current.append(Span(piece, span.style)) }
        }
        if !current.isEmpty { lines.append(StyledLine(current)) }
        return lines
    }
}
