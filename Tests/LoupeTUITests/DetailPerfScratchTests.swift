import Foundation
@testable import LoupeTUI
import LoupeTrace
import Testing

@Suite struct DetailPerfScratchTests {
    static func json(bytes: Int) -> Data {
        var text = "["
        var index = 0
        while text.utf8.count < bytes - 200 {
            if index > 0 { text += "," }
            text += #"{"id":\#(index),"name":"item \#(index) with a name","price":\#(index).10,"tags":["a","b\u00e9"],"ok":true,"meta":{"n":null,"big":12345678901234567890}}"#
            index += 1
        }
        return Data((text + "]").utf8)
    }

    func time(_ label: String, _ body: () -> Int) {
        func cpu() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        var best = 100.0, bestWall = Duration.seconds(100)
        var count = 0
        for _ in 0..<5 {
            let start = cpu(), wall = ContinuousClock.now
            count = body()
            best = min(best, cpu() - start)
            bestWall = min(bestWall, ContinuousClock.now - wall)
        }
        print("PERF \(label): cpu \(Int(best * 1000)) ms wall \(bestWall) lines=\(count)")
    }

    @Test func prettyOnly() {
        let data = Self.json(bytes: 1 << 20)
        let headers = [TraceHeader(name: "Content-Type", value: "application/json")]
        let body = TraceBody(data: data, size: data.count, isTruncated: false)
        time("pretty json only") { BodyFormatter.lines(body, headers: headers, view: .pretty).count }
        let lines = BodyFormatter.lines(body, headers: headers, view: .pretty)
        time("materialize all text") { lines.map(\.text).count }
        time("wrap all to 120") { lines.flatMap { $0.wrapped(to: 120) }.count }
        time("visible page of 40 x (spans+wrap)") { lines[50_000..<50_040].flatMap { $0.wrapped(to: 120) }.map(\.spans.count).reduce(0, +) }
    }

    @Test func floor() {
        let texts = ["  ", "\"name\"", ": ", "\"item 1 with\"", ","]
        time("floor 107k lines x5 spans") {
            var lines: [StyledLine] = []
            for _ in 0..<107_480 {
                var spans: [StyledLine.Span] = []
                spans.append(.init(texts[0], .normal))
                spans.append(.init(texts[1], .label))
                spans.append(.init(texts[2], .normal))
                spans.append(.init(texts[3], .jsonString))
                spans.append(.init(texts[4], .normal))
                lines.append(StyledLine(spans))
            }
            return lines.count
        }
        time("floor 107k lines literal arrays") {
            var lines: [StyledLine] = []
            for _ in 0..<107_480 {
                lines.append(StyledLine([.init(texts[0], .normal), .init(texts[1], .label), .init(texts[2], .normal), .init(texts[3], .jsonString), .init(texts[4], .normal)]))
            }
            return lines.count
        }
        time("floor 107k lines 1 span") {
            var lines: [StyledLine] = []
            for _ in 0..<107_480 {
                lines.append(StyledLine(texts[3]))
            }
            return lines.count
        }
    }

    @Test func measure() {
        let data = Self.json(bytes: 1 << 20)
        let headers = [TraceHeader(name: "Content-Type", value: "application/json")]
        let body = TraceBody(data: data, size: data.count, isTruncated: false)
        print("PERF size \(data.count)")
        time("pretty json") { BodyFormatter.lines(body, headers: headers, view: .pretty).count }
        time("raw json") { BodyFormatter.lines(body, headers: headers, view: .raw).count }
        time("hex") { BodyFormatter.lines(body, headers: headers, view: .hex).count }
        var exchange = Fixture.exchange(1)
        exchange.responseBody = body
        exchange.responseHeaders = headers
        let tabs = DetailTabs(exchange: exchange, calendar: .current)
        time("response tab pretty") { tabs.lines(.response, bodyView: .pretty, width: 80).count }
        let text = TraceBody(data: Data(String(repeating: "a line of text\tdone\n", count: 52_000).utf8), size: 1 << 20, isTruncated: false)
        time("text") { BodyFormatter.lines(text, headers: [], view: .pretty).count }
        let deep = Data((String(repeating: "[", count: 500_000) + String(repeating: "]", count: 500_000)).utf8)
        time("deep") { BodyFormatter.lines(TraceBody(data: deep, size: deep.count, isTruncated: false), headers: [], view: .pretty).count }
    }
}
