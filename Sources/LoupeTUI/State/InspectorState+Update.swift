import Foundation
import LoupeTrace

extension InspectorState {
    /// Applies `action` and returns the effects the runner must carry out. Pure: no I/O, no clock.
    package mutating func update(_ action: InspectorAction) -> [InspectorEffect] {
        switch action {
        case .key(let key):
            if case .confirming(let id) = replay { return answerConfirmation(key, id: id) }
            guard let command = keymap.command(for: key, in: keyContext) else { return [] }
            return run(command)
        case .command(let command):
            return run(command)
        case .resized(let newSize):
            size = newSize
            fitDetail()
            scrollListToSelection()
            return []
        case .summariesLoaded(let summaries, let sequence, let total):
            return merge(summaries, through: sequence, total: total)
        case .detailLoaded(let exchange):
            guard var detail, detail.id == exchange.id else { return [] }
            detail.exchange = exchange
            detail.problem = nil
            detail.setDocument(DetailDocument(exchange: exchange, calendar: calendar).lines)
            screen = .detail(detail)
            fitDetail()
            return []
        case .detailFailed(let id, let reason):
            guard var detail, detail.id == id else { return [] }
            detail.problem = reason
            detail.setDocument([StyledLine(reason, style: .error)])
            screen = .detail(detail)
            fitDetail()
            return []
        case .storeFailed(let message):
            storeProblem = message
            return []
        case .replayNeedsConfirmation(let id, let reason):
            replay = .confirming(id)
            status = .error("Replay? y/N · \(reason) · \(replayTarget(id))")
            return []
        case .replayFinished(let message):
            replay = .idle
            status = message
            return []
        }
    }

    /// `y` sends; any other key (`n`, Esc, a stray key from a paste) cancels: the answer defaults to no.
    private mutating func answerConfirmation(_ key: Key, id: UUID) -> [InspectorEffect] {
        guard key == "y" || key == "Y" else {
            replay = .idle
            status = StatusMessage("replay cancelled")
            return []
        }
        replay = .running
        status = StatusMessage("replaying \(replayTarget(id))…")
        return [.sendReplay(id)]
    }

    /// `POST api.example.com/orders`, for status messages.
    private func replayTarget(_ id: UUID) -> String {
        rows.first { $0.id == id }.map { "\($0.method) \($0.host)\($0.pathAndQuery)" } ?? "exchange"
    }

    private mutating func run(_ command: InspectorCommand) -> [InspectorEffect] {
        status = nil
        if case .confirming = replay { replay = .idle }
        switch command {
        case .quit:
            return [.quit]
        case .help:
            showsHelp = true
            return []
        case .back:
            if showsHelp {
                showsHelp = false
            } else if detail != nil {
                screen = .list
            }
            return []
        case .toggleFollow:
            follow.toggle()
            if follow, !rows.isEmpty { select(rows.count - 1) }
            status = StatusMessage(follow ? "follow on: the newest exchange stays selected" : "follow off")
            return []
        case .replay:
            return replaySelected()
        case .open:
            guard !showsHelp, detail == nil, let summary = selectedSummary else { return [] }
            screen = .detail(DetailState(id: summary.id))
            fitDetail()
            return [.loadDetail(summary.id)]
        case .moveUp, .moveDown, .pageUp, .pageDown, .top, .bottom:
            guard !showsHelp else { return [] }
            if detail != nil { scrollDetail(command) } else { moveSelection(command) }
            return []
        }
    }

    private mutating func replaySelected() -> [InspectorEffect] {
        guard let id = detail?.id ?? selectedSummary?.id else {
            status = .error("nothing to replay yet")
            return []
        }
        guard canReplay else {
            status = .error("replay is not available here: no replayer is configured")
            return []
        }
        guard replay == .idle else {
            status = StatusMessage("a replay is still running: r is ignored until it ends")
            return []
        }
        replay = .running
        status = StatusMessage("replaying \(replayTarget(id))…")
        return [.replay(id)]
    }

    private mutating func moveSelection(_ command: InspectorCommand) {
        guard let current = selectedIndex, !rows.isEmpty else { return }
        let page = layout.listPage
        let target = switch command {
        case .moveUp: current - 1
        case .moveDown: current + 1
        case .pageUp: current - page
        case .pageDown: current + page
        case .top: 0
        default: rows.count - 1
        }
        select(target)
        if let selectedIndex, selectedIndex < rows.count - 1 { follow = false }
    }

    private mutating func scrollDetail(_ command: InspectorCommand) {
        guard var detail else { return }
        let page = layout.detailPage
        let bottom = max(0, detail.wrapped.count - page)
        let target = switch command {
        case .moveUp: detail.scroll - 1
        case .moveDown: detail.scroll + 1
        case .pageUp: detail.scroll - page
        case .pageDown: detail.scroll + page
        case .top: 0
        default: bottom
        }
        detail.scroll = min(max(0, target), bottom)
        screen = .detail(detail)
    }

    private mutating func select(_ index: Int) {
        selectedIndex = rows.isEmpty ? nil : min(max(0, index), rows.count - 1)
        scrollListToSelection()
    }

    /// Keeps the selected row inside the visible rows, and the visible rows inside the list.
    private mutating func scrollListToSelection() {
        let height = layout.listPage
        if let selectedIndex {
            if selectedIndex < listTop { listTop = selectedIndex }
            if selectedIndex >= listTop + height { listTop = selectedIndex - height + 1 }
        }
        listTop = max(0, min(listTop, rows.count - height))
    }

    /// Wraps the detail document to the screen width and keeps its scroll position in range.
    private mutating func fitDetail() {
        guard var detail else { return }
        detail.wrap(to: layout.content.width)
        detail.scroll = max(0, min(detail.scroll, detail.wrapped.count - layout.detailPage))
        screen = .detail(detail)
    }

    private mutating func merge(_ summaries: [TraceSummary], through sequence: Int64, total: Int?) -> [InspectorEffect] {
        hasLoaded = true
        storeProblem = nil
        lastSequence = max(lastSequence, sequence)
        if let total { storeCount = total }
        guard !summaries.isEmpty else { return [] }

        let selectedID = selectedSummary?.id
        var indexByID = Dictionary(rows.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        for summary in summaries {
            if let index = indexByID[summary.id] {
                rows[index] = summary
            } else {
                indexByID[summary.id] = rows.count
                rows.append(summary)
            }
        }
        if rows.count > rowLimit {
            let dropped = rows.count - rowLimit
            rows.removeFirst(dropped)
            listTop = max(0, listTop - dropped)
        }

        if follow {
            select(rows.count - 1)
        } else if let selectedID, let index = rows.firstIndex(where: { $0.id == selectedID }) {
            select(index)
        } else {
            select(0)
        }

        if let detail, summaries.contains(where: { $0.id == detail.id }) {
            return [.loadDetail(detail.id)]
        }
        return []
    }
}
