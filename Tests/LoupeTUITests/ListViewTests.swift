import Foundation
import LoupeTrace
import LoupeTUI
import Testing

@Suite struct ListViewTests {
    private func render(_ exchanges: [TraceExchange], width: Int = 80, height: Int = 24) -> Buffer {
        var state = InspectorState(storeName: "/tmp/t.sqlite", size: Size(width: width, height: height), canReplay: true,
                                   timeZone: .gmt)
        _ = state.update(.summariesLoaded(exchanges.map(\.summary), through: Int64(exchanges.count), total: exchanges.count))
        _ = state.update(.key("g"))
        return InspectorRenderer.render(state)
    }

    /// The column where `text` starts on `row`, counted in cells.
    private func column(of text: String, in buffer: Buffer, row: Int) -> Int? {
        let line = buffer.lines[row]
        guard let range = line.range(of: text) else { return nil }
        return DisplayWidth.of(line[..<range.lowerBound])
    }

    @Test func rowsShowClockMethodStatusTargetDurationAndAttempts() {
        let buffer = render([Fixture.exchange(1, method: "post", url: "https://api.example.com/v1/items?q=1",
                                              status: 201, duration: 0.0423, attempts: 3)])
        #expect(buffer.lines[0].contains("Loupe · /tmp/t.sqlite"))
        #expect(buffer.lines[0].contains("1 exchange · follow on"))
        #expect(buffer.lines[1].hasPrefix("START        METHOD  CODE HOST / PATH"))
        let row = buffer.lines[2]
        #expect(row.hasPrefix("22:13:21.000 POST    201  api.example.com/v1/items?q=1"))
        #expect(row.contains("42ms ×3"))
        #expect(buffer[21, 2].style == .selection)
    }

    @Test func statusesAreColouredByClass() {
        let buffer = render([
            Fixture.exchange(1, status: 200), Fixture.exchange(2, status: 302), Fixture.exchange(3, status: 404),
            Fixture.exchange(4, status: 503),
            Fixture.exchange(5, status: nil, outcome: .transportError, error: "connection refused"),
            Fixture.exchange(6, status: nil, duration: nil),
        ])
        let statusX = 21
        let expected: [(String, Style)] = [
            ("200", .statusSuccess), ("302", .statusRedirect), ("404", .statusClientError),
            ("503", .statusServerError), ("ERR", .error), ("—", .dim),
        ]
        for (offset, (text, style)) in expected.enumerated() where offset > 0 {
            let row = 2 + offset
            #expect(buffer.lines[row].dropFirst(statusX).hasPrefix(text), "row \(row): \(buffer.lines[row])")
            #expect(buffer[statusX, row].style == style)
        }
        #expect(buffer.lines[2].dropFirst(statusX).hasPrefix("200"))
        #expect(buffer.lines[7].contains("…"))
    }

    @Test func theDurationBarIsScaledToTheLongestVisibleRow() {
        let buffer = render([
            Fixture.exchange(1, duration: 1.0), Fixture.exchange(2, duration: 0.5), Fixture.exchange(3, duration: 0.001),
        ], width: 80)
        let bars = (2...4).map { row in buffer.lines[row].suffix(10).filter { "█▏▎▍▌▋▊▉".contains($0) } }
        #expect(bars[0] == String(repeating: "█", count: 10))
        #expect(bars[1] == String(repeating: "█", count: 5))
        #expect(bars[2] == "▏")
        #expect(buffer[70, 3].style == .bar)
        #expect(buffer[75, 3].style == .normal)
    }

    @Test func replayRowsAreMarked() {
        let buffer = render([Fixture.exchange(1), Fixture.exchange(2, replayOf: Fixture.id(1))])
        #expect(!buffer.lines[2].contains("↻"))
        #expect(buffer.lines[3].contains("↻"))
        let x = try! #require(column(of: "↻", in: buffer, row: 3))
        #expect(buffer[x, 3].style == .replay)
    }

    @Test func wideAndControlCharactersKeepColumnsAligned() {
        let buffer = render([
            Fixture.exchange(1, url: "https://api.example.com/plain"),
            Fixture.exchange(2, url: "https://api.example.com/%E6%97%A5%E6%9C%AC%E8%AA%9E/%F0%9F%8E%89/and/more/text/here"),
            Fixture.exchange(3, url: "https://api.example.com/esc%1B%5B31m/e%CC%81"),
            Fixture.exchange(4, url: "https://例え.jp/パス/🇯🇵"),
            Fixture.exchange(5, url: "not a url \u{1B}[2J"),
        ])
        let durationColumns = (2...6).map { column(of: "120ms", in: buffer, row: $0) }
        #expect(Set(durationColumns).count == 1, "\(buffer.text)")
        #expect(durationColumns.first! != nil)
        for row in 2...6 { #expect(DisplayWidth.of(buffer.lines[row]) == 80) }
        #expect(buffer.lines[3].contains("日本語/🎉/"))
        #expect(buffer.lines[4].contains("esc␛[31m"))
        #expect(!buffer.text.contains("\u{1B}"))
    }

    @Test func narrowScreensDropTheBarThenTheClock() {
        let wide = render([Fixture.exchange(1)], width: 120)
        let medium = render([Fixture.exchange(1)], width: 64)
        let narrow = render([Fixture.exchange(1)], width: 44)
        #expect(wide.lines[2].contains("█"))
        #expect(!medium.lines[2].contains("█"))
        #expect(medium.lines[2].hasPrefix("22:13:21.000"))
        #expect(narrow.lines[2].hasPrefix("GET     200  api.example.com"))
    }

    @Test func anEmptyStoreShowsHowToGetTraces() {
        let buffer = render([])
        let text = buffer.text
        #expect(text.contains("No exchanges recorded yet"))
        #expect(text.contains("loupe demo"))
        #expect(text.contains("loupe send GET URL"))
        #expect(text.contains("NetworkTraceInspector"))
        let row = try! #require(buffer.lines.firstIndex { $0.contains("No exchanges recorded yet") })
        #expect(row > 5 && row < 15)
        let widest = try! #require(buffer.lines.first { $0.contains("NetworkTraceInspector") })
        let leading = widest.prefix { $0 == " " }.count
        let trailing = widest.reversed().prefix { $0 == " " }.count
        #expect(leading > 0 && abs(leading - trailing) <= 1, "hint is centred")
    }

    @Test func tinyTerminalsShowOneLine() {
        for size in [Size(width: 39, height: 24), Size(width: 80, height: 7), Size(width: 10, height: 1),
                     Size(width: 0, height: 0)] {
            let buffer = render([Fixture.exchange(1)], width: size.width, height: size.height)
            if size.width > 0, size.height > 0 {
                #expect(buffer.lines[0].hasPrefix(String("terminal too small".prefix(size.width - 1))))
                #expect(buffer.lines.dropFirst().allSatisfy { $0.allSatisfy { $0 == " " } })
            }
        }
    }
}
