import Foundation
import LoupeQuery
import LoupeTrace

/// `d` on a replay (↻): its response against the original's (status, headers, JSON by path, text by lines), side
/// by side at 120 columns or wider and unified below; `n` / `N` move between differences.
package struct DiffScreen: InspectorScreen {
    package let replay: TraceSummary
    private var original: TraceExchange?
    private var replayed: TraceExchange?
    private var problem: String?
    package private(set) var lines: [StyledLine] = []
    private var differenceStarts: [Int] = []
    private var madeForWidth = -1
    package private(set) var scroll = 0
    private var pageHeight = 1

    /// Reads the replay and its original; `nil` (with a message) when `replay` is not a replay.
    package init?(replay: TraceSummary, context: inout ScreenContext) {
        guard let originalID = replay.replayOf else {
            context.status = .error("d compares a replay (↻) with its original: select a replay first")
            return nil
        }
        self.replay = replay
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
        return "difference \(current) of \(differenceStarts.count) · lines \(scroll + 1)–\(min(lines.count, scroll + pageHeight)) of \(lines.count)"
    }

    package mutating func perform(_ command: InspectorCommand, argument: String?, context: inout ScreenContext) -> Bool {
        switch command {
        case .moveUp: scroll(to: scroll - 1)
        case .moveDown: scroll(to: scroll + 1)
        case .pageUp: scroll(to: scroll - pageHeight)
        case .pageDown: scroll(to: scroll + pageHeight)
        case .top: scroll(to: 0)
        case .bottom: scroll(to: lines.count)
        case .searchNext where context.session.search == nil:
            guard let next = differenceStarts.first(where: { $0 > scroll }) ?? differenceStarts.first else { return true }
            scroll = min(next, max(0, lines.count - 1))
        case .searchPrevious where context.session.search == nil:
            guard let previous = differenceStarts.last(where: { $0 < scroll }) ?? differenceStarts.last else { return true }
            scroll = previous
        default:
            return false
        }
        return true
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        if reason == .resized { layout(in: context.area) }
    }

    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        let count = lines.count
        let start = fromCurrent ? scroll : forward ? scroll + 1 : scroll - 1
        for step in 0..<count {
            let index = ((forward ? start + step : start - step) % count + count) % count
            if !FlowSearch.ranges(of: text, in: lines[index].text).isEmpty {
                scroll = index
                return true
            }
        }
        return false
    }

    package mutating func mouse(_ event: MouseEvent, double: Bool, context: inout ScreenContext) {
        if event.kind == .wheelUp { scroll(to: scroll - 3) }
        if event.kind == .wheelDown { scroll(to: scroll + 3) }
    }

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        for (offset, line) in lines.dropFirst(scroll).prefix(area.height).enumerated() {
            buffer.write(styled: line, x: area.x, y: area.y + offset, maxX: area.maxX)
        }
    }

    private mutating func scroll(to line: Int) {
        scroll = max(0, min(line, lines.count - pageHeight))
    }

    private mutating func layout(in area: Rect) {
        pageHeight = max(1, area.height)
        guard area.width != madeForWidth else { return scroll(to: scroll) }
        madeForWidth = area.width
        if let original, let replayed {
            let document = DiffDocument(original: original, replay: replayed, width: area.width)
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
        scroll(to: scroll)
    }
}
