import LoupeTrace

/// What the exchanges list and the timeline (two views of one window) do alike on a refresh, a move and an open.
extension ExchangeWindow {
    /// Brings the window up to date for `reason` with `height` rows; `false` for marks, which change no rows.
    mutating func refresh(_ reason: RefreshReason, height: Int, context: inout ScreenContext) -> Bool {
        let query = context.session.query
        let follow = context.session.follow
        switch reason {
        case .storeChanged where hasLoaded:
            _ = context.read("new exchanges") { try poll(query, store: $0, follow: follow) }
        case .resized where hasLoaded:
            _ = context.read("exchanges") { try refill(query, store: $0, height: height) }
        case .storeChanged, .queryChanged, .resized:
            // Also the first resize, which comes before the first load: only a load honours follow.
            let keeping = selectedRow
            _ = context.read("exchanges") {
                try reload(query, store: $0, height: height, keeping: keeping, follow: follow)
            }
            if let rankRequest { context.effects.append(.countRank(rankRequest)) }
        case .rankCounted(let count):
            return applyRank(count)
        case .settle, .marksChanged:
            return false
        }
        return true
    }

    /// Moves the selection; moving off the newest row is looking at something, so following stops and arrivals
    /// do not pull the selection away.
    mutating func move(by delta: Int, context: inout ScreenContext) {
        let query = context.session.query
        _ = context.read("exchanges") { try move(by: delta, query, store: $0) }
        if delta < 0 || selectedRank.map({ $0 + 1 < total }) == true { context.session.follow = false }
    }

    /// The commands both views take alike: moving, paging, the first and last rows, and opening the selected one.
    /// `false` for any other command, which the screen handles itself.
    mutating func navigate(_ command: Command, page: Int, context: inout ScreenContext) -> Bool {
        let query = context.session.query
        switch command {
        case .moveUp: move(by: -1, context: &context)
        case .moveDown: move(by: 1, context: &context)
        case .pageUp: move(by: -page, context: &context)
        case .pageDown: move(by: page, context: &context)
        case .top:
            context.session.follow = false
            _ = context.read("the first exchanges") { try top(query, store: $0) }
        case .bottom:
            _ = context.read("the last exchanges") { try bottom(query, store: $0) }
        case .open:
            guard let row = selectedRow else { return true }
            context.pushed = DetailScreen(summary: row, context: &context)
        default:
            return false
        }
        return true
    }
}
