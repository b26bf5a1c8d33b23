import Foundation
import LoupeTrace

/// `/` in the detail: where a text is in every tab of one exchange, so `n` and `N` go on from one tab into the next
/// and the status line says where the hits are (`/token: 2/3 · Response 2, Messages 1`).
///
/// A tab's hits are the rows its pager shows that hold the text (its lines wrapped to the screen's width, as
/// ``RowSearch`` counts them); the Messages tab's are the messages whose row or payload holds it, the payload read
/// as its bytes' text as `~msg` reads it (a gRPC message's strings are found, whichever view shows it).
struct DetailSearch {
    /// The hits of one tab: row indices of its pager, or message indices of a stream's messages.
    struct TabHits: Equatable {
        let tab: DetailTab
        let rows: [Int]
    }

    /// A hit to go to, and which of all the hits it is (from 1, in tab order).
    struct Hit: Equatable {
        let tab: DetailTab
        let row: Int
        let ordinal: Int
    }

    /// What was looked for, and the view and width the rows were made for (a later `n` reuses them while they hold).
    let text: String
    let bodyView: BodyView
    let width: Int
    /// Every tab's hits, in the order of the tab bar (tabs without any included).
    let tabs: [TabHits]

    /// Looks for `text` in each of `available` of `content`'s tabs, their lines wrapped to `width`, and in
    /// `pane`'s messages when the exchange has a Messages pane.
    init(_ text: String, in content: DetailTabs, available: [DetailTab], pane: MessagesPane?, bodyView: BodyView, width: Int) {
        self.text = text
        self.bodyView = bodyView
        self.width = width
        func holds(_ shown: String) -> Bool { !ExchangeSearch.ranges(of: text, in: shown).isEmpty }
        tabs = available.map { tab in
            if tab == .messages, let pane {
                let rows = pane.messages.indices.filter { index in
                    holds(pane.rows[index].text) || holds(String(decoding: pane.messages[index].payload, as: UTF8.self))
                }
                return TabHits(tab: tab, rows: rows)
            }
            let lines = content.lines(tab, bodyView: bodyView, width: width).flatMap { $0.wrapped(to: width) }
            return TabHits(tab: tab, rows: lines.indices.filter { holds(lines[$0].text) })
        }
    }

    /// How many rows and messages hold the text, in all tabs.
    var count: Int { tabs.reduce(0) { $0 + $1.rows.count } }

    /// `Response 2, Messages 1`: the tabs holding the text, with their hits.
    var places: String {
        tabs.filter { !$0.rows.isEmpty }.map { "\($0.tab.title) \($0.rows.count)" }.joined(separator: ", ")
    }

    /// The next hit from row `row` of `tab` (itself too when `fromCurrent`), forward or backward through the tabs in
    /// order, wrapping around at either end as ``RowSearch`` does within one list.
    func next(from tab: DetailTab, row: Int, forward: Bool, fromCurrent: Bool) -> Hit? {
        let here = tabs.firstIndex { $0.tab == tab } ?? 0
        let all = tabs.indices.flatMap { index in tabs[index].rows.map { (index, $0) } }
        guard !all.isEmpty else { return nil }
        func before(_ a: (Int, Int), _ b: (Int, Int)) -> Bool { a.0 != b.0 ? a.0 < b.0 : a.1 < b.1 }
        let current = (here, row)
        let found: Int
        if forward {
            found = all.firstIndex { fromCurrent ? !before($0, current) : before(current, $0) } ?? 0
        } else {
            found = all.lastIndex { fromCurrent ? !before(current, $0) : before($0, current) } ?? all.count - 1
        }
        return Hit(tab: tabs[all[found].0].tab, row: all[found].1, ordinal: found + 1)
    }

    /// The status line after a hit: `/token: 2/3 · Response 2, Messages 1`.
    func message(_ hit: Hit) -> StatusMessage {
        StatusMessage("/\(TerminalText.line(text)): \(hit.ordinal)/\(count) · \(places)")
    }
}
