import Foundation
import Synchronization

/// Keeps every notification in memory, in arrival order: for tests and quick inspection.
public final class InMemoryClientObserver: ClientObserver {
    /// One notification as received.
    public enum Notification: Sendable {
        case exchangeStarted(ExchangeStarted)
        case attemptStarted(AttemptStarted)
        case attemptFinished(AttemptFinished)
        case eventRecorded(ExchangeEvent)
        case exchangeFinished(ExchangeFinished)
    }

    private let storage = Mutex<[Notification]>([])
    /// Kept apart from ``notifications`` (whose cases callers switch over exhaustively).
    private let messageStorage = Mutex<[ExchangeMessage]>([])

    /// The stream messages received so far, in order.
    public var messages: [ExchangeMessage] { messageStorage.withLock { $0 } }

    public init() {}

    /// Everything received so far.
    public var notifications: [Notification] { storage.withLock { $0 } }

    /// The finished exchanges received so far.
    public var finishedExchanges: [ExchangeFinished] {
        notifications.compactMap { if case .exchangeFinished(let e) = $0 { e } else { nil } }
    }

    /// The finished attempts received so far.
    public var finishedAttempts: [AttemptFinished] {
        notifications.compactMap { if case .attemptFinished(let a) = $0 { a } else { nil } }
    }

    /// The middleware events received so far.
    public var events: [ExchangeEvent] {
        notifications.compactMap { if case .eventRecorded(let e) = $0 { e } else { nil } }
    }

    public func exchangeStarted(_ exchange: ExchangeStarted) { append(.exchangeStarted(exchange)) }
    public func attemptStarted(_ attempt: AttemptStarted) { append(.attemptStarted(attempt)) }
    public func attemptFinished(_ attempt: AttemptFinished) { append(.attemptFinished(attempt)) }
    public func eventRecorded(_ event: ExchangeEvent) { append(.eventRecorded(event)) }
    public func exchangeFinished(_ exchange: ExchangeFinished) { append(.exchangeFinished(exchange)) }
    public func messageRecorded(_ message: ExchangeMessage) { messageStorage.withLock { $0.append(message) } }

    private func append(_ notification: Notification) {
        storage.withLock { $0.append(notification) }
    }
}
