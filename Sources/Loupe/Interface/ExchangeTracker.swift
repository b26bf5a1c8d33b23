import Foundation
import HTTPTypes
import Synchronization

/// Marks the milestones of one attempt; transports call it as the bytes move.
public final class AttemptHandle: Sendable {
    /// 1 for the first try of an exchange.
    public let number: Int
    private let now: @Sendable () -> Date
    private let timings: Mutex<AttemptTimings>

    init(number: Int, start: Date, now: @escaping @Sendable () -> Date) {
        self.number = number
        self.now = now
        self.timings = Mutex(AttemptTimings(start: start))
    }

    /// The request head and body have been written.
    public func markRequestSent() { timings.withLock { if $0.requestSent == nil { $0.requestSent = now() } } }
    /// The response head arrived.
    public func markFirstByte() { timings.withLock { if $0.firstByte == nil { $0.firstByte = now() } } }

    func finish() -> AttemptTimings {
        let end = now()
        return timings.withLock {
            $0.end = end
            return $0
        }
    }
}

/// The per-exchange bookkeeping shared by every attempt: numbering, timings and reporting to the observer.
final class ExchangeTracker: Sendable {
    let exchangeID: UUID
    let observer: any ClientObserver
    let now: @Sendable () -> Date
    private let attempts = Mutex<[AttemptMetrics]>([])

    init(exchangeID: UUID, observer: any ClientObserver, now: @escaping @Sendable () -> Date) {
        self.exchangeID = exchangeID
        self.observer = observer
        self.now = now
    }

    var attemptCount: Int { attempts.withLock { $0.count } }
    var metrics: [AttemptMetrics] { attempts.withLock { $0 } }

    func record(_ kind: ExchangeEventKind, _ message: String, attributes: [String: String]) {
        observer.eventRecorded(ExchangeEvent(exchangeID: exchangeID, kind: kind, at: now(), message: message, attributes: attributes))
    }

    /// Runs one attempt through the transport, numbering, timing and reporting it.
    func runAttempt(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        transport: any ClientTransport
    ) async throws -> RawResponse {
        let start = now()
        let number = attempts.withLock {
            $0.append(AttemptMetrics(number: $0.count + 1, timings: AttemptTimings(start: start)))
            return $0.count
        }
        let handle = AttemptHandle(number: number, start: start, now: now)
        var context = context
        context.attempt = handle
        observer.attemptStarted(AttemptStarted(
            exchangeID: exchangeID, number: number, request: request, startedAt: start, annotations: context.annotations))
        do {
            let response = try await transport.send(request, body: body, context: context)
            let timings = handle.finish()
            update(number) { $0.timings = timings; $0.status = response.status.code }
            observer.attemptFinished(AttemptFinished(
                exchangeID: exchangeID, number: number, response: response.head, responseBody: response.body,
                error: nil, timings: timings))
            return response
        } catch {
            let timings = handle.finish()
            update(number) { $0.timings = timings; $0.error = String(describing: error) }
            observer.attemptFinished(AttemptFinished(
                exchangeID: exchangeID, number: number, response: nil, responseBody: nil, error: error, timings: timings))
            throw error
        }
    }

    private func update(_ number: Int, _ change: (inout AttemptMetrics) -> Void) {
        attempts.withLock { change(&$0[number - 1]) }
    }
}

/// What the caller learns about one attempt of an exchange.
public struct AttemptMetrics: Sendable, Hashable {
    public var number: Int
    public var timings: AttemptTimings
    /// The status code, when a response arrived.
    public var status: Int?
    /// A description of the error, when the attempt failed.
    public var error: String?
}
