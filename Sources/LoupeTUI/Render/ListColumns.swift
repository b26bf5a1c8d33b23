/// Where each list column starts for a given width; narrow screens drop the bar, then the clock.
struct ListColumns {
    static let timeWidth = 12, methodWidth = 7, statusWidth = 4, durationWidth = 6, attemptsWidth = 3

    let timeX: Int?
    let methodX: Int
    let statusX: Int
    let targetX: Int
    let targetWidth: Int
    let durationX: Int
    let attemptsX: Int
    let replayX: Int
    let barX: Int
    let barWidth: Int

    init(width: Int) {
        timeX = width >= 60 ? 0 : nil
        methodX = timeX == nil ? 0 : Self.timeWidth + 1
        statusX = methodX + Self.methodWidth + 1
        targetX = statusX + Self.statusWidth + 1
        barWidth = width >= 120 ? 24 : width >= 100 ? 16 : width >= 70 ? 10 : 0
        barX = width - barWidth
        replayX = (barWidth > 0 ? barX - 1 : width) - 2
        attemptsX = replayX - 1 - Self.attemptsWidth
        durationX = attemptsX - 1 - Self.durationWidth
        targetWidth = max(0, durationX - 1 - targetX)
    }
}
