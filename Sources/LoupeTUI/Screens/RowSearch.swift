import LoupeTrace

/// `/`, `n` and `N` over a screen that holds its rows (or lines) in memory: the circuits board, a key's history,
/// the metrics, the detail and the help. It looks for the text in what each row shows, ignoring case, wraps
/// around at either end as less and vim do, and says which hit of how many it landed on (`3/7`).
package enum RowSearch {
    /// A row the text was found in.
    package struct Hit: Equatable {
        /// The row's index.
        package let index: Int
        /// Which hit it is, from 1, in row order.
        package let ordinal: Int
        /// How many rows hold the text.
        package let count: Int
    }

    /// The next row holding `text` from `current` (itself too when `fromCurrent`), forward or backward.
    static func find(_ text: String, in rows: [String], from current: Int, forward: Bool, fromCurrent: Bool) -> Hit? {
        guard !text.isEmpty else { return nil }
        let hits = rows.indices.filter { !ExchangeSearch.ranges(of: text, in: rows[$0]).isEmpty }
        guard !hits.isEmpty else { return nil }
        let found: Int
        if forward {
            found = hits.first { fromCurrent ? $0 >= current : $0 > current } ?? hits[0]
        } else {
            found = hits.last { fromCurrent ? $0 <= current : $0 < current } ?? hits[hits.count - 1]
        }
        return Hit(index: found, ordinal: (hits.firstIndex(of: found) ?? 0) + 1, count: hits.count)
    }

    /// The status line after a hit: `/slow: 3/7`.
    static func message(_ hit: Hit, _ text: String) -> StatusMessage {
        StatusMessage("/\(TerminalText.line(text)): \(hit.ordinal)/\(hit.count)")
    }

    /// Marks where `text` occurs in `shown`, drawn from column `x` on row `y` up to `maxX`.
    static func highlight(_ text: String?, in shown: String, x: Int, y: Int, maxX: Int, into buffer: inout Buffer) {
        guard let text, !text.isEmpty else { return }
        for range in ExchangeSearch.ranges(of: text, in: shown) where x + range.lowerBound < maxX {
            let width = min(range.count, maxX - x - range.lowerBound)
            buffer.setStyle(.searchHit, in: Rect(x: x + range.lowerBound, y: y, width: width, height: 1))
        }
    }
}
