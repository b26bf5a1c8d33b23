/// One attempt's row of the waterfall as cells, at eighth-of-a-cell resolution where the attempt begins and ends.
///
/// A cell the attempt covers wholly shows the fill of the phase covering most of it; a cell it covers partly
/// shows a block as wide as the part (`▏`…`▉` on the left, `▕`/`▐` on the right). An attempt is never drawn
/// narrower than an eighth of a cell, so a 2 ms attempt on a 10 s axis still shows a tick. Cells before it that
/// fall in the backoff gap show a dim dotted line.
enum WaterfallTrack {
    static let gap: Character = "┈"
    private static let leftBlocks: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]
    private static let minimumWidth = 1.0 / 8

    static func spans(_ row: TimingWaterfall.Row, cells: Int, scale: Double) -> [StyledLine.Span] {
        let limit = Double(cells)
        var from = min(row.start * scale, limit)
        var to = min(max(row.end * scale, from + minimumWidth), limit)
        if to - from < minimumWidth { from = max(0, to - minimumWidth) }
        to = max(to, from)
        let gapFrom = row.gapFrom.map { min($0 * scale, from) }
        let segments = row.segments.map { (phase: $0.phase, from: $0.from * scale, to: $0.to * scale) }
        // For an attempt too short to cover any part of a cell, the phase it spent longest in.
        let fallback = row.segments.max { $0.to - $0.from <= $1.to - $1.from }?.phase ?? .untimed

        var spans: [StyledLine.Span] = []
        for cell in 0..<max(0, cells) {
            let low = Double(cell), high = low + 1
            // Less than half an eighth is a rounding sliver of a neighbouring cell's bar, not a tick of its own.
            let cover = overlap(from, to, low, high)
            if cover * 8 >= 0.5 {
                var phase = fallback, best = 0.0
                for segment in segments {
                    let part = overlap(segment.from, segment.to, low, high)
                    if part >= best, part > 0 {
                        phase = segment.phase
                        best = part
                    }
                }
                let centre = (max(from, low) + min(to, high)) / 2 - low
                append(character(cover: cover, fromLeft: from <= low, toRight: to >= high, centre: centre, phase: phase),
                       phase.style, to: &spans)
            } else if let gapFrom, overlap(gapFrom, from, low, high) >= 0.5 {
                append(gap, .dim, to: &spans)
            } else {
                append(" ", .normal, to: &spans)
            }
        }
        return spans
    }

    private static func character(cover: Double, fromLeft: Bool, toRight: Bool, centre: Double,
                                  phase: TimingWaterfall.Phase) -> Character {
        let eighths = min(8, Int((cover * 8).rounded()))
        if eighths == 8 { return phase.fill }
        // A block drawn from the cell's left edge when the attempt runs in from the left or sits in the left half;
        // otherwise from the right edge, where only an eighth and a half exist.
        if fromLeft || (!toRight && centre < 0.5) { return leftBlocks[eighths - 1] }
        if eighths >= 6 { return phase.fill }
        return eighths >= 3 ? "▐" : "▕"
    }

    private static func overlap(_ from: Double, _ to: Double, _ low: Double, _ high: Double) -> Double {
        max(0, min(to, high) - max(from, low))
    }

    private static func append(_ character: Character, _ style: Style, to spans: inout [StyledLine.Span]) {
        if let last = spans.indices.last, spans[last].style == style {
            spans[last].text.append(character)
        } else {
            spans.append(StyledLine.Span(String(character), style))
        }
    }
}
