import Foundation
import Loupe
import LoupeQuery
@testable import LoupeTrace
import Synchronization
import Testing

/// A wall clock the test moves by hand.
final class TestNow: Sendable {
    private let now = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    var date: Date { now.withLock { $0 } }
    func advance(days: Double) { now.withLock { $0.addTimeInterval(days * 86_400) } }
    var clock: @Sendable () -> Date { { self.date } }
}

/// The two stores, made the same way, so every bound is checked on both.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, memory
    var testDescription: String { rawValue }

    func make(_ folder: TemporaryFolder, bounds: TraceStoreBounds? = nil, pruneEvery: Int = 10_000,
              now: TestNow) throws -> any TraceStore {
        switch self {
        case .sqlite:
            try SQLiteTraceStore(path: folder.file("traces.sqlite"), bounds: bounds, pruneEvery: pruneEvery, now: now.clock)
        case .memory:
            InMemoryTraceStore(bounds: bounds, now: now.clock)
        }
    }
}
