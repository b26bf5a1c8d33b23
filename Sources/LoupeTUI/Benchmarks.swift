import Foundation
import LoupeTrace

/// What Loupe's own measurements reach of this module (`Benchmarks/json-callgrind.sh`, issue 27): the
/// benchmarks are a package of their own, so `package` API is out of their reach, and this small SPI is the door
/// for them. It is not a user's API: nothing here is visible without `@_spi(Benchmarks) import LoupeTUI`.
@_spi(Benchmarks)
public enum DetailBenchmarks {
    /// Lays out the detail view's Response tab of `exchange` (the body pretty-printed, 120 columns) `rounds`
    /// times. Each round reads the spans of the first 40 lines (what one screen draws), or with `everyLine` the
    /// text of every line (what a search through the body reads). Returns a count of what was read, so that none
    /// of the work can be left out.
    public static func responseTab(of exchange: TraceExchange, rounds: Int, everyLine: Bool) -> Int {
        let tabs = DetailTabs(exchange: exchange, calendar: Calendar(identifier: .gregorian))
        var sink = 0
        for _ in 0..<rounds {
            let lines = tabs.lines(.response, bodyView: .pretty, width: 120)
            if everyLine {
                for line in lines { sink += line.text.utf8.count }
            } else {
                for line in lines.prefix(40) { sink += line.spans.count }
            }
        }
        return sink
    }
}
