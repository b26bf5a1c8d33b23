import Foundation
import Loupe
import Synchronization

/// Tells a test when an adapter has reported an exchange's end to its recorder. The URLSession adapters report from
/// FoundationNetworking's own queue, which a test cannot await otherwise; put this beside the recorder in a
/// `MultiplexClientObserver`, after it, and the end has reached the recorder by the time ``next(_:)`` returns.
final class ExchangeEnds: ClientObserver {
    private let operations = Mutex<[UUID: String]>([:])
    private let ends: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (ends, continuation) = AsyncStream.makeStream()
    }

    func exchangeStarted(_ exchange: ExchangeStarted) {
        operations.withLock { $0[exchange.exchangeID] = exchange.operation }
    }

    func exchangeFinished(_ exchange: ExchangeFinished) {
        continuation.yield(operations.withLock { $0.removeValue(forKey: exchange.exchangeID) } ?? "")
    }

    /// Returns once an exchange named `operation` (`GET /slow`) has ended, counting ends not waited for yet.
    func next(_ operation: String) async {
        for await ended in ends where ended == operation { return }
    }
}
