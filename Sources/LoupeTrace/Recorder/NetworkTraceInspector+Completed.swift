import Foundation
import Loupe
import Synchronization

extension NetworkTraceInspector: CompletedExchangeObserver {
    /// An adapter's exchange, whole: queued for the writer as it is, without being kept among the
    /// exchanges in flight first (``exchangeStarted(_:)`` then ``exchangeFinished(_:)`` take the lock twice and insert
    /// and remove it by id). The same record as from those two calls, and the same drop accounting.
    public func exchangeCompleted(_ started: ExchangeStarted, _ finished: ExchangeFinished) {
        var pending = PendingExchange(
            started, messageCap: configuration.messageCap, payloadCap: configuration.messagePayloadCap)
        let droppedBefore = state.withLock { state in
            defer { state.unreportedDrops = 0 }
            return state.unreportedDrops
        }
        pending.finish(with: finished, droppedBefore: droppedBefore)
        if !writer.enqueue(ExchangeBox(pending)) {  // its last use: moved, not copied
            // Lost too: reported, with the ones it carried, on the next exchange that makes it.
            state.withLock { $0.unreportedDrops += droppedBefore + 1 }
        }
    }
}
