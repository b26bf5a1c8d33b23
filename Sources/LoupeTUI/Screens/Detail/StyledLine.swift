/// One line of styled text: what the detail view is made of, before it is wrapped and drawn.
///
/// A line of a large body is *deferred*: it holds its source and where it is in it, and its spans are built only
/// when read (``spans``, ``text``), so a 1 MiB body gives its 100,000 lines at once and only those drawn are ever
/// built. Reading a deferred line costs what building it would have; keep the lines, not copies of their spans.
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

    private enum Storage: Sendable {
        case spans([Span])
        case deferred(any DeferredLineSource, Int, Int)
    }

    private var storage: Storage

    /// The runs, left to right (built now if the line is deferred).
    package var spans: [Span] {
        get {
            switch storage {
            case .spans(let spans): spans
            case .deferred(let source, let first, let second): source.spans(first, second)
            }
        }
        set { storage = .spans(newValue) }
    }

    /// A line of `spans`.
    package init(_ spans: [Span]) {
        storage = .spans(spans)
    }

    /// A line of `text` in one `style`.
    package init(_ text: String, style: Style = .normal) {
        storage = .spans([Span(text, style)])
    }

    /// A line `source` builds from the two numbers it gave (an offset and a length, say) when it is read.
    init(deferred source: any DeferredLineSource, _ first: Int, _ second: Int) {
        storage = .deferred(source, first, second)
    }

    /// Equal when the spans are; two deferred lines from the same place are equal without being built.
    package static func == (lhs: StyledLine, rhs: StyledLine) -> Bool {
        if case .deferred(let left, let leftFirst, let leftSecond) = lhs.storage,
           case .deferred(let right, let rightFirst, let rightSecond) = rhs.storage,
           left === right, leftFirst == rightFirst, leftSecond == rightSecond {
            return true
        }
        return lhs.spans == rhs.spans
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(spans)
    }

    /// At least as many columns as the line takes, known without building a deferred line: no character is
    /// wider than its UTF-8 bytes (`wrapped(to:)` uses it to keep a short deferred line unbuilt).
    var widthBound: Int {
        switch storage {
        case .spans(let spans): spans.reduce(0) { $0 + $1.text.utf8.count }
        case .deferred(let source, let first, let second): source.widthBound(first, second)
        }
    }

    /// Whether the line is still unbuilt: a source and where it is in it (tests check that opening a long stream or
    /// body builds only what is drawn).
    package var isDeferred: Bool {
        if case .deferred = storage { true } else { false }
    }

    /// An empty line.
    package static let empty = StyledLine([])

    /// The plain text.
    package var text: String { spans.map(\.text).joined() }

    /// The same line with neighbouring spans of one style joined, so a drawn row is a few runs, not a span per cell.
    func mergingRuns() -> StyledLine {
        var merged: [Span] = []
        for span in spans where !span.text.isEmpty {
            if let last = merged.indices.last, merged[last].style == span.style {
                merged[last].text += span.text
            } else {
                merged.append(span)
            }
        }
        return StyledLine(merged)
    }

    /// The line cut into lines of at most `width` columns; continuation lines keep the line's indent plus two.
    /// `hangingIndent` sets that indent instead (the help's description column).
    /// Lines break after a space where one is in the second half of the line, so ids, URLs and numbers in an
    /// event or header stay whole; a longer run of text (a body, a token) is cut where it reaches the edge.
    package func wrapped(to width: Int, hangingIndent: Int? = nil) -> [StyledLine] {
        guard width > 0, widthBound > width else { return [self] }
        // Read once: a deferred line builds its spans on every read.
        let spans = self.spans
        let text = spans.map(\.text).joined()
        guard width > 0, DisplayWidth.of(text) > width else { return [self] }
        let leading = text.prefix { $0 == " " }.count
        let indent = min(hangingIndent ?? leading + 2, width / 2)
        var lines: [StyledLine] = []
        // The line being filled, a cell at a time, and where it may break: after its last space past the middle.
        var current: [(character: Character, style: Style)] = []
        var column = 0
        var breakAfter: Int?
        func emit(_ cells: ArraySlice<(character: Character, style: Style)>) {
            var spans: [Span] = []
            var run = ""
            var runStyle = cells.first?.style ?? .normal
            for cell in cells {
                if cell.style != runStyle, !run.isEmpty {
                    spans.append(Span(run, runStyle))
                    run = ""
                }
                runStyle = cell.style
                run.append(cell.character)
            }
            if !run.isEmpty { spans.append(Span(run, runStyle)) }
            lines.append(StyledLine(spans))
        }
        let pad = (0..<indent).map { _ in (character: Character(" "), style: Style.normal) }
        for span in spans {
            for character in span.text {
                let characterWidth = DisplayWidth.of(character)
                if column + characterWidth > width, column > indent {
                    if let breakAfter {
                        // Spaces at the break belong to neither line.
                        var end = breakAfter
                        while end > indent, current[end - 1].character == " " { end -= 1 }
                        emit(current[..<end])
                        current = pad + current[(breakAfter + 1)...].drop { $0.character == " " }
                    } else {
                        emit(current[...])
                        current = pad
                    }
                    column = current.reduce(0) { $0 + DisplayWidth.of($1.character) }
                    breakAfter = nil
                    if character == " ", current.count == indent { continue }
                }
                if character == " ", column > indent, column * 2 >= width { breakAfter = current.count }
                current.append((character, span.style))
                column += characterWidth
            }
        }
        if !current.isEmpty { emit(current[...]) }
        return lines
    }
}

/// What builds deferred ``StyledLine``s: immutable, so lines that share it may be read from any thread.
protocol DeferredLineSource: AnyObject, Sendable {
    /// The spans of the line made with `first` and `second`.
    func spans(_ first: Int, _ second: Int) -> [StyledLine.Span]
    /// At least the columns that line takes (see ``StyledLine/widthBound``), without building it.
    func widthBound(_ first: Int, _ second: Int) -> Int
}
