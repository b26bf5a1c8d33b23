import Foundation
import Loupe
import LoupeApproval
import LoupeTrace

/// `6`: what agents asked `loupe mcp --allow-actions` to do, waiting for a person, oldest first: who asks (the
/// agent's client by the name it gave), the tool, and exactly what it would send (method, target, count) or write
/// (a rule's text, shown in full under the list for the selected request).
///
/// The requests are the files `loupe mcp` leaves beside the store (``AgentQueue``), the same ones `loupe approve`
/// answers; the screen reads them on every poll. `a` asks first (the question repeats what will be sent, and only its
/// yes key approves); `r` refuses at once, since refusing sends nothing. The decision is written by the app
/// (``TUIEffect/decideAgentRequest(id:approved:what:)``), never by this screen.
package struct AgentsScreen: Screen {
    /// One waiting request.
    package struct Request: Hashable, Sendable {
        package var id: String
        package var entry: AgentQueue.Entry

        /// `agent "claude-code" (loupe mcp) asks to replay #12: POST https://… (1 request)`.
        package var asking: String { TerminalText.line("\(entry.origin) asks to \(entry.summary)") }
    }

    package private(set) var requests: [Request] = []
    private var viewport: ListViewport
    private let available: Bool

    package init(context: inout ScreenContext) {
        viewport = ListViewport(height: 1, selects: true)
        available = context.agents != nil
        reload(context)
    }

    package var keyContext: KeyContext { .agents }
    package var title: String { "agents" }
    package var position: String { requests.isEmpty ? "" : "\(viewport.selected + 1) / \(requests.count)" }

    /// The selected request, if any is waiting.
    package var selectedRequest: Request? {
        requests.indices.contains(viewport.selected) ? requests[viewport.selected] : nil
    }

    /// The rows the list gets: the area less the header, and less the selected request's full text under it (at
    /// most half the area).
    private static func listHeight(_ area: Rect) -> Int { max(1, (area.height - 1) / 2) }

    private mutating func reload(_ context: ScreenContext) {
        let previous = selectedRequest?.id
        requests = (context.agents?.pending() ?? []).map { Request(id: $0.id, entry: $0.entry) }
        // The selection follows its request as others come and go.
        let index = previous.flatMap { id in requests.firstIndex { $0.id == id } }
        viewport.update(count: requests.count, height: Self.listHeight(context.area), selecting: index)
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        reload(context)
    }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        viewport.perform(command)
    }

    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        guard let hit = viewport.search(text, in: requests.map(\.asking), forward: forward, fromCurrent: fromCurrent) else { return false }
        context.status = RowSearch.message(hit, text)
        return true
    }

    static let unavailable = "agent requests are kept beside a store file: open one (loupe tui STORE)"

    // MARK: Drawing

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        guard area.width > 2, area.height > 1 else { return }
        guard available else {
            _ = buffer.write(Self.unavailable, x: area.x + 1, y: area.y + 1, maxWidth: area.width - 2, style: .dim)
            return
        }
        let header = requests.isEmpty ? "No agent requests waiting"
            : "\(Quantity.count(requests.count, "agent request")) waiting for you · oldest first"
        _ = buffer.write(header, x: area.x, y: area.y, maxWidth: area.width, style: .heading)
        if requests.isEmpty {
            let hint = "An agent asks here when its server runs `loupe mcp STORE --allow-actions` on this store."
            for (offset, line) in StyledLine(hint, style: .dim).wrapped(to: area.width - 2, hangingIndent: 0).prefix(area.height - 2).enumerated() {
                _ = buffer.write(line.text, x: area.x + 1, y: area.y + 2 + offset, maxWidth: area.width - 2, style: .dim)
            }
            return
        }
        let listHeight = Self.listHeight(area)
        for (offset, index) in viewport.visible.enumerated() where offset < listHeight {
            let y = area.y + 1 + offset
            let request = requests[index]
            let waited = Quantity.duration(max(0, context.now.timeIntervalSince(request.entry.createdAt)))
            let text = "\(DisplayWidth.pad(waited, to: 7)) \(TerminalText.line(request.entry.tool ?? "action")) · \(request.asking)"
            let selected = index == viewport.selected
            if selected { buffer.fill(Rect(x: area.x, y: y, width: area.width, height: 1), style: .selection) }
            _ = buffer.write(text, x: area.x, y: y, maxWidth: area.width, style: selected ? .selection : .statusClientError)
        }
        // The selected request in full: what the question will name, and every line it would write.
        guard let request = selectedRequest else { return }
        var lines = [StyledLine("Selected: what it would do", style: .heading)]
        lines += StyledLine(request.asking).wrapped(to: area.width - 2, hangingIndent: 2)
        lines += request.entry.detail.map { StyledLine("    " + TerminalText.line($0), style: .label) }
        let top = area.y + 1 + listHeight
        for (offset, line) in lines.prefix(area.maxY - top - 1).enumerated() {
            var x = area.x + 1
            for span in line.spans {
                x = buffer.write(span.text, x: x, y: top + 1 + offset, maxWidth: area.maxX - 1 - x, style: span.style)
            }
        }
    }
}
