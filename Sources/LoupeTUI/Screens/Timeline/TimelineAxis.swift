import Foundation

/// The timeline's shared time axis: how many seconds the bar area spans and where it ends. A value type whose
/// zoom and pan steps walk a ladder of round spans, so tick labels stay readable.
package struct TimelineAxis: Hashable, Sendable {
    /// Round spans, 10 ms to a day: `+` steps down the ladder, `-` up.
    static let spans: [TimeInterval] = [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1_800, 3_600, 7_200, 21_600, 86_400,
    ]

    /// Seconds across the bar area.
    package private(set) var span: TimeInterval = 10
    /// The time at the bar area's right edge.
    package private(set) var end = Date(timeIntervalSince1970: 0)
    /// Whether the user zoomed or panned: until then the axis fits what is on screen.
    package private(set) var isManual = false

    package init() {}

    /// The time at the left edge.
    package var start: Date { end.addingTimeInterval(-span) }

    /// Fits the axis to `earliest`…`latest` with the smallest round span that holds it (a little room on the
    /// right, so the newest bar does not touch the edge).
    package mutating func fit(earliest: Date, latest: Date) {
        let needed = max(0, latest.timeIntervalSince(earliest)) * 1.05
        span = Self.spans.first { $0 >= needed } ?? Self.spans[Self.spans.count - 1]
        end = earliest.addingTimeInterval(span)
        if latest > end { end = latest }
    }

    /// Keeps the span, with the right edge at `latest` (follow).
    package mutating func follow(_ latest: Date) {
        end = latest.addingTimeInterval(span * 0.02)
    }

    /// One step in (`in`) or out on the ladder, keeping the right edge when `keepingEnd` (following), else
    /// `anchor` (the selected row's start) where it was on the axis, or in the middle when it was off it: the
    /// selection stays in view as a map keeps the point under the cursor. Without an anchor, the centre stays.
    package mutating func zoom(in zoomIn: Bool, keepingEnd: Bool, around anchor: Date? = nil) {
        let index = Self.spans.lastIndex { $0 <= span } ?? 0
        let next = Self.spans[max(0, min(Self.spans.count - 1, index + (zoomIn ? -1 : 1)))]
        let centre = end.addingTimeInterval(-span / 2)
        let fraction = anchor.map { $0.timeIntervalSince(start) / span }
        span = next
        if keepingEnd {
        } else if let anchor, let fraction {
            // Off the axis (or at its very edge), the anchor comes to the middle.
            let place = fraction >= 0.02 && fraction <= 0.98 ? fraction : 0.5
            end = anchor.addingTimeInterval((1 - place) * span)
        } else {
            end = centre.addingTimeInterval(span / 2)
        }
        isManual = true
    }

    /// Moves by a quarter of the span, later when `forward`.
    package mutating func pan(forward: Bool) {
        end = end.addingTimeInterval((forward ? 1 : -1) * span / 4)
        isManual = true
    }

    /// `date` as a column of an area `cells` wide, in fractions of a cell.
    func column(_ date: Date, cells: Int) -> Double {
        date.timeIntervalSince(start) / span * Double(cells)
    }
}
