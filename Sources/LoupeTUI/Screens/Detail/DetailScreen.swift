import Foundation
import LoupeContract
import LoupeProtobuf
import LoupeQuery
import LoupeTrace

/// One exchange in tabs (Request, Response, Attempts, Events, Timing, and Messages for a stream), opened from the
/// exchanges list with Enter. Only the visible lines of a tab are drawn, however long its body or stream.
package struct DetailScreen: Screen {
    /// The row it was opened from.
    package let summary: TraceSummary
    /// The exchange, once read.
    package private(set) var exchange: TraceExchange?
    /// Why it could not be read.
    package private(set) var problem: String?
    package private(set) var tab: DetailTab = .request
    package private(set) var bodyView: BodyView = .pretty
    /// Store numbers of the exchanges this one names, read with it (``DetailTabs/numbers``).
    private var numbers: [UUID: Int64] = [:]
    /// What the OpenAPI contract says of the exchange (`loupe tui --openapi`), checked when it is opened.
    package private(set) var verdict: ContractVerdict?
    /// Names gRPC messages' fields (``DetailTabs/messageTypes``), taken from the context when opened.
    private var messageTypes: ProtobufDescriptorSet?
    /// The tab's lines wrapped to the width they were made for.
    package private(set) var lines: [StyledLine] = []
    private var header: [StyledLine] = []
    private var madeFor: (tab: DetailTab, body: BodyView, width: Int)?
    /// Where the tab's lines are scrolled to.
    private var viewport = ListViewport(selects: false)
    /// The Messages tab of a stream with messages: its rows, selection and payload (``MessagesPane``).
    package private(set) var messages: MessagesPane?
    /// The area the tab's content is drawn in (below the header and the tab bar), as last laid out.
    private var contentArea = Rect(x: 0, y: 0, width: 1, height: 1)
    /// The last search's hits in every tab, kept for `n` and `N` while the text, body view, width and exchange hold.
    private var found: DetailSearch?

    /// Opens `summary`'s exchange, reading it from the store.
    package init(summary: TraceSummary, context: inout ScreenContext) {
        self.summary = summary
        messageTypes = context.messageTypes
        do {
            exchange = try context.store.exchange(id: summary.id)
            if exchange == nil { problem = "This exchange is no longer in the store." }
            numbers = exchange.map(context.store.numbers(referencedBy:)) ?? [:]
            if let contract = context.contract, let exchange { verdict = contract.contract.check(exchange) }
        } catch {
            problem = "Could not read the exchange: \(error)"
        }
        layout(in: context.area, calendar: context.calendar)
    }

    package var keyContext: KeyContext { .detail }
    package var title: String { "detail" }
    package var selection: TraceSummary? { summary }

    package var position: String {
        if let pane = shownPane { return pane.position }
        guard !lines.isEmpty else { return "" }
        return viewport.linesPosition
    }

    /// The first line shown.
    package var scroll: Int { viewport.offset }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        if shownPane != nil, performOnMessages(command, context: &context) { return true }
        if viewport.perform(command) { return true }
        switch command {
        case .nextTab: show(availableTabs[(tabIndex + 1) % availableTabs.count], context: context)
        case .previousTab:
            let count = availableTabs.count
            show(availableTabs[(tabIndex + count - 1) % count], context: context)
        case .tab:
            guard let name = argument?.trimmingCharacters(in: .whitespaces).lowercased(),
                  let tab = DetailTab(rawValue: name), availableTabs.contains(tab) else {
                context.status = .error("tab: expected one of " + availableTabs.map(\.rawValue).joined(separator: ", "))
                return true
            }
            show(tab, context: context)
        case .cycleBody:
            let views = BodyView.allCases
            bodyView = views[((views.firstIndex(of: bodyView) ?? 0) + 1) % views.count]
            context.status = StatusMessage("body view: \(bodyView.rawValue)")
            layout(in: context.area, calendar: context.calendar)
        case .toggleFollow:
            context.status = .error("follow: only a stream's Messages tab follows new messages")
        default:
            return false
        }
        return true
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        switch reason {
        case .resized: layout(in: context.area, calendar: context.calendar)
        case .storeChanged: readAgainIfOpen(context: &context)
        default: break
        }
    }

    /// Looks in every tab (``DetailSearch``): a hit in another tab shows that tab, and the status line says which
    /// tabs hold the text.
    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        guard let exchange, !text.isEmpty else { return searchShown(text, forward: forward, fromCurrent: fromCurrent, context: &context) }
        let width = max(1, context.area.width)
        if found?.text != text || found?.bodyView != bodyView || found?.width != width {
            var tabs = DetailTabs(exchange: exchange, calendar: context.calendar, numbers: numbers, messageTypes: messageTypes)
            tabs.verdict = verdict
            found = DetailSearch(text, in: tabs, available: availableTabs, pane: messages ?? MessagesPane(tabs),
                                 bodyView: bodyView, width: width)
        }
        guard let found, let hit = found.next(from: tab, row: shownPane?.selected ?? viewport.searchStart,
                                              forward: forward, fromCurrent: fromCurrent) else { return false }
        show(hit.tab, context: context)
        if var pane = shownPane {
            pane.select(hit.row, rowsHeight: pane.rowsHeight(in: contentArea.height))
            pane.preparePayload(bodyView)
            messages = pane
        } else {
            viewport.land(on: hit.row)
        }
        context.status = found.message(hit)
        return true
    }

    /// The search within the tab shown, for an exchange that could not be read (its lines say why).
    private mutating func searchShown(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        if var pane = shownPane {
            let height = pane.rowsHeight(in: contentArea.height)
            guard let hit = pane.search(text, forward: forward, fromCurrent: fromCurrent, rowsHeight: height) else {
                return false
            }
            pane.preparePayload(bodyView)
            messages = pane
            context.status = RowSearch.message(hit, text)
            return true
        }
        guard let hit = viewport.search(text, in: lines.map(\.text), forward: forward, fromCurrent: fromCurrent) else {
            return false
        }
        context.status = RowSearch.message(hit, text)
        return true
    }

    package mutating func mouse(_ event: MouseEvent, double: Bool, context: inout ScreenContext) {
        if var pane = shownPane {
            let height = pane.rowsHeight(in: contentArea.height)
            switch event.kind {
            case .wheelUp, .wheelDown: pane.wheel(event.kind, rowsHeight: height)
            case .press:
                if let row = pane.row(atY: event.y, in: contentArea) { pane.select(row, rowsHeight: height) }
            }
            pane.preparePayload(bodyView)
            messages = pane
        }
        switch event.kind {
        case .wheelUp, .wheelDown: if shownPane == nil { viewport.wheel(event.kind) }
        case .press:
            guard event.y == context.area.y + header.count else { return }
            if let hit = TabBar(labels: tabLabels, selected: tabIndex).tab(atColumn: event.x - context.area.x) {
                show(availableTabs[hit], context: context)
            }
        }
    }

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        var y = area.y
        for line in header.prefix(area.height) {
            buffer.write(styled: line, x: area.x, y: y, maxX: area.maxX)
            y += 1
        }
        guard y < area.maxY else { return }
        TabBar(labels: tabLabels, selected: tabIndex).render(in: Rect(x: area.x, y: y, width: area.width, height: 1),
                                                              into: &buffer, trailing: bodyHint)
        y += 1
        if let pane = shownPane {
            pane.render(in: Rect(x: area.x, y: y, width: area.width, height: max(0, area.maxY - y)), into: &buffer,
                        search: context.search, view: bodyView)
            return
        }
        for line in lines.dropFirst(viewport.offset).prefix(max(0, area.maxY - y)) {
            buffer.write(styled: line, x: area.x, y: y, maxX: area.maxX)
            if let search = context.search {
                let text = line.text
                if DisplayWidth.of(text) == text.count {
                    for range in ExchangeSearch.ranges(of: search, in: text) {
                        buffer.setStyle(.searchHit, in: Rect(x: area.x + range.lowerBound, y: y, width: range.count, height: 1))
                    }
                }
            }
            y += 1
        }
    }

    // MARK: Helpers

    private var tabIndex: Int { availableTabs.firstIndex(of: tab) ?? 0 }

    /// The tabs this exchange has (Messages only for a stream).
    private var availableTabs: [DetailTab] { DetailTab.tabs(for: exchange, checked: verdict != nil) }

    private var tabLabels: [String] {
        guard let exchange else { return availableTabs.map(\.title) }
        var tabs = DetailTabs(exchange: exchange, calendar: Calendar(identifier: .gregorian))
        tabs.verdict = verdict
        return availableTabs.map(tabs.label)
    }

    private var bodyHint: String? {
        if shownPane != nil { return "payload: \(bodyView.rawValue)" }
        return [.request, .response, .contract].contains(tab) ? "body: \(bodyView.rawValue)" : nil
    }

    /// The Messages pane when it is the tab shown.
    private var shownPane: MessagesPane? { tab == .messages ? messages : nil }

    /// The Messages tab's keys: the selection moves instead of the page.
    private mutating func performOnMessages(_ command: Command, context: inout ScreenContext) -> Bool {
        guard var pane = messages else { return false }
        let height = pane.rowsHeight(in: contentArea.height)
        if command == .toggleFollow {
            pane.toggleFollow(rowsHeight: height)
            context.status = StatusMessage(pane.follows ? "follow: on" : "follow: off")
        } else if !pane.perform(command, rowsHeight: height) {
            return false
        }
        pane.preparePayload(bodyView)
        messages = pane
        return true
    }

    /// A stream still open grows: it is read again after each poll that found the store changed, until it ends.
    private mutating func readAgainIfOpen(context: inout ScreenContext) {
        guard let shown = exchange, shown.endedAt == nil, shown.stream != nil else { return }
        guard let read = context.read("the exchange", { try $0.exchange(id: summary.id) }), let read else { return }
        guard read != shown else { return }
        exchange = read
        found = nil
        let tabs = DetailTabs(exchange: read, calendar: context.calendar, numbers: numbers, messageTypes: messageTypes)
        if messages == nil {
            messages = MessagesPane(tabs)
        } else {
            messages?.update(tabs)
        }
        madeFor = nil
        layout(in: context.area, calendar: context.calendar)
    }

    private mutating func show(_ tab: DetailTab, context: ScreenContext) {
        guard tab != self.tab else { return }
        self.tab = tab
        viewport.scroll(to: 0)
        layout(in: context.area, calendar: context.calendar)
    }

    /// Builds the tab's lines for the area's width when the tab, body view or width changed.
    private mutating func layout(in area: Rect, calendar: Calendar) {
        let width = max(1, area.width)
        guard let exchange else {
            header = []
            lines = [StyledLine(problem ?? "Loading…", style: problem == nil ? .dim : .error)]
            viewport.update(count: lines.count, height: area.height)
            return
        }
        var tabs = DetailTabs(exchange: exchange, calendar: calendar, numbers: numbers, messageTypes: messageTypes)
        tabs.verdict = verdict
        header = tabs.header().flatMap { $0.wrapped(to: width) }.prefix(2).map { $0 }
        let pageHeight = max(1, area.height - header.count - 1)
        contentArea = Rect(x: area.x, y: area.y + header.count + 1, width: width, height: pageHeight)
        if tab == .messages, var pane = messages ?? MessagesPane(tabs) {
            // The pane's rows are never wrapped, so a long stream stays unbuilt but for the rows drawn.
            pane.select(pane.selected, rowsHeight: pane.rowsHeight(in: pageHeight))
            pane.preparePayload(bodyView)
            messages = pane
            lines = []
            viewport.update(count: 0, height: pageHeight)
            madeFor = nil
            return
        }
        if madeFor?.tab != tab || madeFor?.body != bodyView || madeFor?.width != width {
            lines = tabs.lines(tab, bodyView: bodyView, width: width).flatMap { $0.wrapped(to: width) }
            madeFor = (tab, bodyView, width)
        }
        viewport.update(count: lines.count, height: pageHeight)
    }
}

extension DetailScreen: Equatable {
    package static func == (lhs: DetailScreen, rhs: DetailScreen) -> Bool {
        lhs.summary == rhs.summary && lhs.tab == rhs.tab && lhs.bodyView == rhs.bodyView && lhs.scroll == rhs.scroll
            && lhs.lines == rhs.lines && lhs.messages == rhs.messages
    }
}
