import Foundation

/// An observer that takes a whole exchange, already finished, in one call: what an adapter around another
/// networking stack reports (``AdapterRecording``), since nothing of its exchange happens between the start and
/// the end that the observer could see (no attempts one by one, no events, no stream messages).
///
/// The recorder (`NetworkTraceInspector`) is one: an exchange reported this way is not kept among those in flight
/// and then looked up again, which costs a lock and a dictionary insert and removal per exchange.
/// An observer that is not one hears of an adapter's exchange as of any other, by
/// ``ClientObserver/exchangeStarted(_:)`` when it starts and ``ClientObserver/exchangeFinished(_:)`` when it ends.
public protocol CompletedExchangeObserver: ClientObserver {
    /// One exchange, `started` and `finished` (the same ``ExchangeStarted/exchangeID``): the same facts as
    /// ``ClientObserver/exchangeStarted(_:)`` followed at once by ``ClientObserver/exchangeFinished(_:)``.
    func exchangeCompleted(_ started: ExchangeStarted, _ finished: ExchangeFinished)
}
