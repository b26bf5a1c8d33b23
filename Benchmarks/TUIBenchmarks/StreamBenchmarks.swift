import Benchmark
import Foundation
import LoupeTUI
import LoupeTrace

/// The streams budget (issue 30): a 100,000-message stream's Messages tab opens in < 100 ms. One op, from the exchanges
/// list with the stream selected: Enter (the detail reads the exchange and its messages from SQLite) and Shift-Tab
/// (the last tab, Messages: its rows made and the first frame of them drawn), both measured to the frame they
/// cause; Esc back is outside.
func registerStreamBenchmarks() {
    let inspector = Lazy { () throws -> DrivenTUI in
        let inspector = DrivenTUI(path: try StreamStore.path())
        _ = try inspector.waitForFirstFrame()
        return inspector
    }
    Benchmark("TUI: Messages tab of a 100k-message stream (Enter + Shift-Tab → frame)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
                                   timeUnits: .milliseconds, warmupIterations: 1, scalingFactor: .one,
                                   maxDuration: .seconds(20), maxIterations: 30)) { benchmark in
        measure(benchmark, inspector) { inspector in
            benchmark.startMeasurement()
            try inspector.press(.enter)
            let frame = try inspector.press(.backTab)
            benchmark.stopMeasurement()
            try inspector.press(.escape)
            guard frame.contains("Messages 100000"), frame.contains("message 1 of 100,000") else {
                throw DriveFailure("the frame shows no Messages tab of 100,000 messages:\n\(frame)")
            }
        }
    }
}

/// A store of one WebSocket exchange with 100,000 kept messages (JSON payloads of about 30 bytes), made once in the
/// temporary folder.
enum StreamStore {
    static let count = 100_000

    static func path() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-bench-stream-\(count).sqlite").path
        if FileManager.default.fileExists(atPath: path) { return path }
        let store = try SQLiteTraceStore(path: path + ".part", bounds: nil)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var exchange = TraceExchange(id: UUID(), operation: "ticks", method: "GET", url: "wss://bench.test/ticks",
                                     startedAt: start, endedAt: start.addingTimeInterval(100), outcome: .success,
                                     status: 101)
        exchange.stream = TraceStream(
            kind: .webSocket,
            messages: (0..<count).map { index in
                TraceMessage(index: index, direction: index % 10 == 0 ? .sent : .received,
                             at: start.addingTimeInterval(Double(index) / 1000), type: "text", size: 30,
                             payload: Data("{\"n\":\(index),\"price\":101.25}".utf8))
            },
            sentCount: count / 10, receivedCount: count - count / 10, byteCount: 30 * count)
        try store.write([exchange])
        try store.close()
        try FileManager.default.moveItem(atPath: path + ".part", toPath: path)
        return path
    }
}
