import Dispatch
import Foundation
import LoupeQuery
import LoupeTrace
import Synchronization

/// A store whose writes block until the test opens it, announcing each write as it begins.
///
/// The writer calls stores on its own dispatch queue, so blocking here holds up the writer, never the test.
final class GatedStore: TraceStore {
    let inner = InMemoryTraceStore()
    /// Yields the size of each batch as its write begins.
    let writesStarted: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation
    private let isClosed = Mutex(true)
    private let semaphore = DispatchSemaphore(value: 0)

    init() {
        (writesStarted, continuation) = AsyncStream.makeStream(of: Int.self)
    }

    /// Lets the blocked write (and every later one) through.
    func open() {
        let wasClosed = isClosed.withLock { closed in
            defer { closed = false }
            return closed
        }
        if wasClosed { semaphore.signal() }
    }

    func write(_ exchanges: [TraceExchange]) throws {
        continuation.yield(exchanges.count)
        // Only the serial writer queue gets here, so one signal releases the one write that may be waiting.
        if isClosed.withLock({ $0 }) { semaphore.wait() }
        try inner.write(exchanges)
    }

    func recent(limit: Int) throws -> [TraceSummary] { try inner.recent(limit: limit) }
    func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        try inner.summaries(after: sequence, limit: limit)
    }
    func exchange(id: UUID) throws -> TraceExchange? { try inner.exchange(id: id) }
    func count() throws -> Int { try inner.count() }
}

/// A store that announces each batch as it is written (never blocks).
final class AnnouncingStore: TraceStore {
    let inner = InMemoryTraceStore()
    let batches: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation

    init() {
        (batches, continuation) = AsyncStream.makeStream(of: Int.self)
    }

    func write(_ exchanges: [TraceExchange]) throws {
        try inner.write(exchanges)
        continuation.yield(exchanges.count)
    }

    func recent(limit: Int) throws -> [TraceSummary] { try inner.recent(limit: limit) }
    func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        try inner.summaries(after: sequence, limit: limit)
    }
    func exchange(id: UUID) throws -> TraceExchange? { try inner.exchange(id: id) }
    func count() throws -> Int { try inner.count() }
}

/// A store whose disk is always full.
struct FailingStore: TraceStore {
    struct DiskFull: Error {}
    func write(_ exchanges: [TraceExchange]) throws { throw DiskFull() }
    func recent(limit: Int) throws -> [TraceSummary] { [] }
    func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] { [] }
    func exchange(id: UUID) throws -> TraceExchange? { nil }
    func count() throws -> Int { 0 }
}

/// A fresh folder under the system temp directory, removed by `remove()`.
struct TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "loupe-trace-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
