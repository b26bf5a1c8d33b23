/// What an empty list says instead of rows: how to get traces, or that the filter matched nothing (never an
/// error).
struct EmptyHint {
    let hasLoaded: Bool
    /// A filter is set (`f`).
    let filtered: Bool
    /// Only marked exchanges are shown (`M`).
    var markedOnly = false
    /// The link apps are given, when the TUI listens: an empty store then waits for them.
    var link: String? = nil
    /// The keys the ways out are named by, and the screen they are pressed on.
    var keymap = Keymap.standard
    var keyContext = KeyContext.exchanges

    var lines: [StyledLine] {
        guard hasLoaded else { return [StyledLine("Reading the store…", style: .dim)] }
        if filtered || markedOnly {
            // Name only what narrows the list now: `M` is no way out of a filter that matches nothing.
            let ways = (filtered ? ["\(keymap.hint(.filter, in: keyContext)) edits the filter (an empty one clears it)"] : [])
                + (markedOnly ? ["\(keymap.hint(.showMarked, in: keyContext)) shows all, not only marked"] : [])
            return [
                StyledLine("No exchange matches", style: .heading),
                .empty,
                StyledLine(ways.joined(separator: "; ") + ".", style: .dim),
            ]
        }
        if let link {
            return [
                StyledLine("Waiting for linked apps", style: .heading),
                .empty,
                StyledLine("Give each app this line in its environment (the app calls LoupeLink.fromEnvironment()):"),
                .empty,
                StyledLine(link, style: .label),
                .empty,
                StyledLine("or --link to loupe demo and loupe send. :link shows it again.", style: .dim),
            ]
        }
        return [
            StyledLine("No exchanges recorded yet", style: .heading),
            .empty,
            StyledLine("To record some, run one of:"),
            .empty,
            StyledLine([.init("loupe demo", .label), .init("              run a flaky demo API with live traffic", .dim)]),
            StyledLine([.init("loupe send GET URL", .label), .init("      send one request and record it", .dim)]),
            StyledLine([.init("NetworkTraceInspector", .label), .init("   embed it in your app to record its traffic", .dim)]),
            .empty,
            StyledLine("New exchanges appear here as they are written.", style: .dim),
        ]
    }

    func render(in area: Rect, into buffer: inout Buffer) {
        // A line wider than the screen (the link is about 150 characters) wraps, continuing at the block's left
        // edge: cut, the link could not be copied from here.
        let lines = lines.flatMap { $0.wrapped(to: area.width, hangingIndent: 0) }
        let blockWidth = lines.map { DisplayWidth.of($0.text) }.max() ?? 0
        let x = area.x + max(0, (area.width - blockWidth) / 2)
        let top = area.y + max(0, (area.height - lines.count) / 2)
        for (offset, line) in lines.enumerated() where offset < area.height {
            var column = x
            for span in line.spans {
                column = buffer.write(span.text, x: column, y: top + offset, maxWidth: area.maxX - column, style: span.style)
            }
        }
    }
}
