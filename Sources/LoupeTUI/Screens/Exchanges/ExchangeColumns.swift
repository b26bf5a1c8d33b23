/// Where each exchanges column starts for a given width; narrow screens drop the bar, the size, then the clock. The
/// SOURCE column (the linked app, `s`) comes after the clock when asked for, taking its width from the target.
struct ExchangeColumns {
    static let markWidth = 1, timeWidth = 12, methodWidth = 7, statusWidth = 4, sizeWidth = 7, durationWidth = 6,
        attemptsWidth = 3, sourceWidth = 12
    /// Drawn beside the mark on a row that drifts from the OpenAPI contract (`loupe tui --openapi`).
    static let driftGlyph = "≠"

    let markX = 0
    let timeX: Int?
    let sourceX: Int?
    let methodX: Int
    let statusX: Int
    let targetX: Int
    let targetWidth: Int
    let sizeX: Int?
    let durationX: Int
    let attemptsX: Int
    let replayX: Int
    let barX: Int
    let barWidth: Int

    init(width: Int, showsSource: Bool = false) {
        timeX = width >= 60 ? Self.markWidth + 1 : nil
        let afterTime = timeX.map { $0 + Self.timeWidth + 1 } ?? Self.markWidth + 1
        sourceX = showsSource ? afterTime : nil
        methodX = afterTime + (showsSource ? Self.sourceWidth + 1 : 0)
        statusX = methodX + Self.methodWidth + 1
        targetX = statusX + Self.statusWidth + 1
        barWidth = width >= 120 ? 20 : width >= 100 ? 14 : width >= 76 ? 8 : 0
        barX = width - barWidth
        replayX = (barWidth > 0 ? barX - 1 : width) - 2
        attemptsX = replayX - 1 - Self.attemptsWidth
        durationX = attemptsX - 1 - Self.durationWidth
        sizeX = width >= 90 ? durationX - 1 - Self.sizeWidth : nil
        targetWidth = max(0, (sizeX ?? durationX) - 1 - targetX)
    }
}
