import Foundation
import GRDB
import Loupe
import LoupeQuery
import LoupeTrace
import Testing

/// The real `loupe` binary recording in another process: crash safety and cross-process visibility.
@Suite(.serialized) struct CrossProcessTests {
    /// `loupe` sits beside the test bundle in SwiftPM's build folder.
    static var loupeBinary: URL? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        let candidate = folder.appendingPathComponent("loupe")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    static func startRecorder(store: String, workers: Int, pause: Int) throws -> Process {
        let process = Process()
        process.executableURL = try #require(loupeBinary, "build the loupe executable first (swift build)")
        process.arguments = ["demo", "--headless", "--duration", "60", "--store", store,
                             "--workers", String(workers), "--pause", String(pause)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Polls (the store is written by another process; nothing here can be awaited) until `condition` holds.
    static func poll(upTo seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            // The recorder is another process committing to the file: nothing in this process signals its commits,
            // so the test polls, bounded by the deadline.
            usleep(10_000)  // a poll of another process's commits: no clock or event of this process reaches them
        }
        return try condition()
    }

    @Test func killDashNineMidWriteLeavesAnIntactStore() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("killed.sqlite").path
            let recorder = try Self.startRecorder(store: path, workers: 24, pause: 0)
            defer { if recorder.isRunning { kill(recorder.processIdentifier, SIGKILL) } }
            let busy = Self.poll(upTo: 30) {
                guard FileManager.default.fileExists(atPath: path),
                      let store = try? SQLiteTraceStore(path: path, readOnly: true) else { return false }
                return (try? store.count()) ?? 0 >= 500
            }
            #expect(busy, "the recorder never reached 500 exchanges")
            kill(recorder.processIdentifier, SIGKILL)
            recorder.waitUntilExit()
            #expect(recorder.terminationReason == .uncaughtSignal)

            // Reopen for writing (recovers the WAL), then check every committed exchange is whole.
            let store = try SQLiteTraceStore(path: path)
            let queue = try DatabaseQueue(path: path)
            let integrity = try queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
            #expect(integrity == "ok")
            let summaries = try store.recent(limit: 1_000_000)
            #expect(summaries.count >= 500)
            var broken = 0
            for summary in summaries {
                guard let exchange = try store.exchange(id: summary.id) else { broken += 1; continue }
                // Exchanges that never reached the wire must say why: an open breaker, or joining an identical
                // in-flight request (de-duplication).
                let explained = exchange.outcome == .shortCircuited || exchange.events.contains { $0.kind == "dedup-join" }
                if exchange.attempts.count != summary.attemptCount || (exchange.attempts.isEmpty && !explained) { broken += 1 }
                if exchange.endedAt == nil { broken += 1 }
            }
            #expect(broken == 0, "\(broken) of \(summaries.count) exchanges were incomplete after kill -9")
        }
    }

    @Test func aReaderInAnotherProcessSeesNewExchangesQuickly() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("live.sqlite").path
            let recorder = try Self.startRecorder(store: path, workers: 2, pause: 50)
            defer { kill(recorder.processIdentifier, SIGKILL); recorder.waitUntilExit() }
            // The file appears before its schema does; a reader is refused until the writer has migrated it.
            var opened: SQLiteTraceStore?
            #expect(Self.poll(upTo: 30) {
                opened = try? SQLiteTraceStore(path: path, readOnly: true)
                return opened != nil
            })
            let store = try #require(opened)
            var lastSequence: Int64 = 0
            var latencies: [TimeInterval] = []
            _ = try Self.poll(upTo: 30) {
                let fresh = try store.summaries(after: lastSequence, limit: 1000)
                let seenAt = Date()
                for summary in fresh {
                    lastSequence = max(lastSequence, summary.sequence)
                    guard let duration = summary.duration else { continue }
                    // Skip what was already on disk when we started looking.
                    if lastSequence > 0, !latencies.isEmpty || fresh.count < 50 {
                        latencies.append(seenAt.timeIntervalSince(summary.startedAt.addingTimeInterval(duration)))
                    }
                }
                return latencies.count >= 60
            }
            #expect(latencies.count >= 60)
            let sorted = latencies.sorted()
            let median = sorted[sorted.count / 2]
            let p95 = sorted[Int(Double(sorted.count - 1) * 0.95)]
            print("cross-process visibility over \(sorted.count) exchanges: median \(Int(median * 1000)) ms, p95 \(Int(p95 * 1000)) ms, max \(Int((sorted.last ?? 0) * 1000)) ms")
            // The writer flushes every 100 ms; the reader polls every 10 ms: a quiet machine sees a median near
            // 100 ms. The bound is 10 flush intervals, not 2.5: with the whole suite and other builds at load 15 the
            // median was 476 ms, while a reader that kept its snapshot or a writer that held its batches for
            // seconds still fails it. The budget itself is measured in Benchmarks, not here.
            #expect(median < 1.0)
        }
    }
}

/// A fresh temporary folder for synchronous tests, removed afterwards.
func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-xproc-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}
