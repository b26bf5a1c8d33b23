import Foundation
import Synchronization

/// Keeps exchanges in memory: for tests and for apps that only want a live view.
public final class InMemoryTraceStore: TraceStore {
    private struct State {
        var exchanges: [TraceExchange] = []
        var nextSequence: Int64 = 1
    }

    private let state = Mutex(State())

    public init() {}

    public func write(_ exchanges: [TraceExchange]) throws {
        state.withLock { state in
            for var exchange in exchanges {
                state.exchanges.removeAll { $0.id == exchange.id }
                exchange.sequence = state.nextSequence
                state.nextSequence += 1
                state.exchanges.append(exchange)
            }
        }
    }

    public func recent(limit: Int) throws -> [TraceSummary] {
        state.withLock { Array($0.exchanges.suffix(max(0, limit)).map(\.summary)) }
    }

    public func summaries(after sequence: Int64, limit: Int) throws -> [TraceSummary] {
        state.withLock { state in
            Array(state.exchanges.lazy.filter { ($0.sequence ?? 0) > sequence }.prefix(max(0, limit)).map(\.summary))
        }
    }

    public func exchange(id: UUID) throws -> TraceExchange? {
        state.withLock { $0.exchanges.first { $0.id == id } }
    }

    public func count() throws -> Int {
        state.withLock { $0.exchanges.count }
    }

    /// Every stored exchange, oldest first.
    public var all: [TraceExchange] { state.withLock { $0.exchanges } }
}
