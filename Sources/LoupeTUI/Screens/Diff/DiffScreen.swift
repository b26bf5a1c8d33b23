import Foundation
import LoupeProtobuf
import LoupeQuery
import LoupeTrace

/// `d` on a replay (↻): its response against the original's (status, headers, JSON by path, text by lines), side
/// by side at 120 columns or wider and unified below; `n` / `N` move between differences.
package struct DiffScreen: Screen {
    package let replay: TraceSummary
    private var original: TraceExchange?
    private var replayed: TraceExchange?
    private var problem: String?
    package private(set) var lines: [StyledLine] = []
    private var differenceStarts: [Int] = []
    private var madeForWidth = -1
    /// The descriptor set gRPC messages are compared by (`--descriptor-set`), if one was given.
    private var messageTypes: ProtobufDescriptorSet?
    /// Where the comparison is scrolled to.
    private var viewport = ListViewport(selects: false)

    /// Reads the replay and its original; `nil` (with a message) when `replay` is not a replay.
    package init?(replay: TraceSummary, context: inout ScreenContext) {
        guard let originalID = replay.replayOf else {
            context.status = .error("\(context.keymap.hint(.diff, in: .exchanges)) compares a replay (↻) with its original: select a replay first")
            return nil
        }
        self.replay = replay
        messageTypes = context.messageTypes
        do {
            replayed = try context.store.exchange(id: replay.id)
            original = try context.store.exchange(id: originalID)
            if original == nil { problem = "The original of this replay is no longer in the store." }
        } catch {
            problem = "Could not read the exchanges: \(error)"
        }
        layout(in: context.area)
    }

    package var keyContext: KeyContext { .diff }
    package var title: String { "diff" }
    package var selection: TraceSummary? { replay }
    package var position: String {
        let current = differenceStarts.lastIndex { $0 <= scroll }.map { $0 + 1 } ?? 0
        return "difference \(current) of \(differenceStarts.count) · " + viewport.linesPosition
    }

    /// The first line shown.
    package var scroll: Int { viewport.offset }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        if viewport.perform(command) { return true }
        switch command {
        case .searchNext where context.session.search == nil:
            guard let next = differenceStarts.first(where: { $0 > scroll }) ?? differenceStarts.first else { return true }
            viewport.showAtTop(next)
        case .searchPrevious where context.session.search == nil:
            guard let previous = differenceStarts.last(where: { $0 < scroll }) ?? differenceStarts.last else { return true }
            viewport.showAtTop(previous)
        default:
            return false
        }
        return true
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        if reason == .resized { layout(in: context.area) }
    }

    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        // A hit goes to the top of the screen, as a difference does, even on the last page.
        guard let hit = RowSearch.find(text, in: lines.map(\.text), from: scroll, forward: forward,
                                       fromCurrent: fromCurrent) else { return false }
        viewport.showAtTop(hit.index)
        return true
    }

    package mutating func mouse(_ event: MouseEvent, double: Bool, context: inout ScreenContext) {
        viewport.wheel(event.kind)
    }

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        for (offset, line) in lines.dropFirst(viewport.offset).prefix(area.height).enumerated() {
            buffer.write(styled: line, x: area.x, y: area.y + offset, maxX: area.maxX)
        }
    }

    private mutating func layout(in area: Rect) {
        guard area.width != madeForWidth else { return viewport.update(count: lines.count, height: area.height) }
        madeForWidth = area.width
        if let original, let replayed {
            let document = DiffDocument(original: original, replay: replayed, width: area.width,
                                        messageTypes: messageTypes)
            let starts = Set(document.differenceStarts)
            lines = []
            differenceStarts = []
            for (index, line) in document.lines.enumerated() {
                if starts.contains(index) { differenceStarts.append(lines.count) }
                lines += line.wrapped(to: max(1, area.width))
            }
        } else {
            lines = [StyledLine(problem ?? "Loading…", style: .error)]
            differenceStarts = []
        }
        viewport.update(count: lines.count, height: area.height)
    }
}
