import Dispatch
import Foundation
@testable import LoupeQuery
@testable import LoupeTrace
@testable import LoupeFormats
import Synchronization
import Testing
@testable import LoupeTestSupport

/// The export reads its batches on a thread of its own; these check the hand-off and that every way it ends (the
/// end, a failed read, a failed write) reaches the other side instead of leaving a thread waiting.
@Suite("Batches read ahead", .timeLimit(.minutes(5)))
struct BatchReadAheadTests {
    /// Runs `body` on a new thread; the semaphore is signalled when it returns.
    static func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done
    }

    @Test("every batch arrives once, in order, then the end", arguments: [1, 3])
    func order(depth: Int) {
        let ahead = BatchReadAhead<Int>(depth: depth)
        let done = Self.onThread {
            for index in 0..<2_000 { precondition(ahead.put(.batch(index))) }
            _ = ahead.put(.end)
        }
        var taken: [Int] = []
        loop: while true {
            switch ahead.take() {
            case .batch(let index): taken.append(index)
            case .end: break loop
            case .failed(let error): Issue.record(error)
            }
        }
        #expect(taken == Array(0..<2_000))
        #expect(done.wait(timeout: .now() + 30) == .success)
    }

    @Test("a caller that stops releases a reader waiting for room, and every later put fails")
    func stopReleasesTheReader() {
        let ahead = BatchReadAhead<Int>(depth: 1)
        let results = Mutex<[Bool]>([])
        let done = Self.onThread {
            for index in 0..<3 {
                let accepted = ahead.put(.batch(index))
                results.withLock { $0.append(accepted) }
            }
        }
        guard case .batch(0) = ahead.take() else {
            Issue.record("the first batch did not come first")
            return
        }
        ahead.stop()
        #expect(done.wait(timeout: .now() + 30) == .success)
        // The second put may have found room before the caller stopped; the third cannot have.
        let accepted = results.withLock { $0 }
        #expect(accepted.count == 3 && accepted[0] && !accepted[2], "\(accepted)")
    }

    @Test("a reader started on its own thread ends when the caller stops before taking anything")
    func stopBeforeTaking() {
        let ended = DispatchSemaphore(value: 0)
        let ahead = BatchReadAhead<Int>.start { put in
            defer { ended.signal() }
            for index in 0..<100 { try put(index) }
            Issue.record("every put succeeded although the caller stopped")
        }
        ahead.stop()
        #expect(ended.wait(timeout: .now() + 30) == .success)
    }

    struct ReadFailed: Error {}

    @Test("what a reader throws reaches the caller after the batches before it; what the caller throws stops the reader")
    func errorsCross() throws {
        let failing = BatchReadAhead<Int>.start { put in
            for index in 0..<10 { try put(index) }
            throw ReadFailed()
        }
        var taken: [Int] = []
        #expect(throws: ReadFailed.self) { try failing.forEach { taken.append($0) } }
        #expect(taken == Array(0..<10))

        let ended = DispatchSemaphore(value: 0)
        let endless = BatchReadAhead<Int>.start { put in
            defer { ended.signal() }
            var index = 0
            while true {
                try put(index)
                index += 1
            }
        }
        #expect(throws: SinkFull.self) { try endless.forEach { if $0 == 5 { throw SinkFull() } } }
        #expect(ended.wait(timeout: .now() + 30) == .success)
    }

    @Test("an export that reaches damaged pages after writing batches throws the store's damaged error")
    func readFailureCrosses() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try DamagedStoreTests.damagedStore(at: path, bodyBytes: 30_000)
        let store = try SQLiteTraceStore(path: path, readOnly: true, bounds: nil)
        defer { try? store.close() }
        var written = 0
        var writer = HARWriter { written += $0.count }
        try writer.begin()
        let error = try #require(throws: TraceStoreError.self) {
            try store.export(matching: nil, into: &writer, batchSize: 7, byteBudget: 1)
        }
        #expect(error.code == .damaged, "\(error)")
        #expect(writer.count > 0 && written > 0, "batches before the damage were written: \(writer.count)")
    }

    struct SinkFull: Error, Equatable {}

    @Test("a sink that fails ends the export with its error, and the read with it")
    func writeFailureStopsTheRead() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: nil)
        defer { try? store.close() }
        try store.write((0..<200).map { index in
            var exchange = Fixture.simple(index)
            exchange.responseBody = TraceBody(data: Data(repeating: 0x61, count: 20_000), size: 20_000, isTruncated: false)
            return exchange
        })
        var calls = 0
        var writer = HARWriter { _ in
            calls += 1
            throw SinkFull()
        }
        try writer.begin()
        #expect(throws: SinkFull.self) { try store.export(matching: nil, into: &writer, batchSize: 5) }
        #expect(calls == 1)
        #expect(writer.count < 200, "the export stopped at the first failed write")
    }
}
