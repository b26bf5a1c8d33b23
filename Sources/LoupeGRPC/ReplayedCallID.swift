import Foundation
import Loupe
import Synchronization

/// Notes the id of the exchange a replay was recorded as (the last attempt's, when grpc-swift retried), so the
/// replay can be read back and compared with its original.
final class ReplayedCallID: ClientObserver {
    private let id = Mutex<UUID?>(nil)

    var value: UUID? { id.withLock { $0 } }

    func exchangeStarted(_ exchange: ExchangeStarted) {
        id.withLock { $0 = exchange.exchangeID }
    }
}
