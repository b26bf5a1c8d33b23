import Foundation

/// Receives every step of every exchange a ``Client`` performs: the seam the flight recorder plugs into.
///
/// Methods are called on the request path, synchronously, so an observer must return quickly and never block
/// (hand work to a queue). Every method has a no-op default, so an observer implements only what it needs, as
/// with Alamofire's `EventMonitor`. An observer cannot fail a request: its methods do not throw.
public protocol ClientObserver: Sendable {
    /// A logical request began, before any middleware ran.
    func exchangeStarted(_ exchange: ExchangeStarted)
    /// One try on the wire is about to be handed to the transport.
    func attemptStarted(_ attempt: AttemptStarted)
    /// One try on the wire ended with a response or an error.
    func attemptFinished(_ attempt: AttemptFinished)
    /// A middleware decided something worth recording (retry scheduled, breaker transition, refresh wait…).
    func eventRecorded(_ event: ExchangeEvent)
    /// One message of the exchange's stream (a server-sent event, a WebSocket message) was sent or received.
    /// Called on the stream's path for every message: return at once.
    func messageRecorded(_ message: ExchangeMessage)
    /// The logical request ended; nothing more will be reported for it.
    func exchangeFinished(_ exchange: ExchangeFinished)
}

extension ClientObserver {
    public func exchangeStarted(_ exchange: ExchangeStarted) {}
    public func attemptStarted(_ attempt: AttemptStarted) {}
    public func attemptFinished(_ attempt: AttemptFinished) {}
    public func eventRecorded(_ event: ExchangeEvent) {}
    public func messageRecorded(_ message: ExchangeMessage) {}
    public func exchangeFinished(_ exchange: ExchangeFinished) {}
}

/// An observer that ignores everything: the default when nothing is recorded.
public struct NoOpClientObserver: ClientObserver {
    public init() {}
}

/// Forwards every notification to each of several observers, in order.
public struct MultiplexClientObserver: ClientObserver {
    public let observers: [any ClientObserver]

    public init(_ observers: [any ClientObserver]) {
        self.observers = observers
    }

    public func exchangeStarted(_ exchange: ExchangeStarted) { observers.forEach { $0.exchangeStarted(exchange) } }
    public func attemptStarted(_ attempt: AttemptStarted) { observers.forEach { $0.attemptStarted(attempt) } }
    public func attemptFinished(_ attempt: AttemptFinished) { observers.forEach { $0.attemptFinished(attempt) } }
    public func eventRecorded(_ event: ExchangeEvent) { observers.forEach { $0.eventRecorded(event) } }
    public func messageRecorded(_ message: ExchangeMessage) { observers.forEach { $0.messageRecorded(message) } }
    public func exchangeFinished(_ exchange: ExchangeFinished) { observers.forEach { $0.exchangeFinished(exchange) } }
}
