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
            // Again here, for authorities a middleware rewrote: no transport may see an unusable port.
            if let problem = RequestTargetCheck.problem(in: request) { throw problem }
            let response = try await transport.send(request, body: body, context: context)
            let timings = handle.finish()
            update(number) { $0.timings = timings; $0.status = response.status.code }
            observer.attemptFinished(AttemptFinished(
                exchangeID: exchangeID, number: number, response: response.head, responseBody: response.body,
                error: nil, timings: timings))
            return response
        } catch {
            let timings = handle.finish()
            let partial = (error as? TransportError)?.partialResponse
            update(number) { $0.timings = timings; $0.error = String(describing: error); $0.status = partial?.status.code }
            if let partial, let failure = error as? TransportError { recordIncomplete(partial, failure) }
            observer.attemptFinished(AttemptFinished(
                exchangeID: exchangeID, number: number, response: partial?.head, responseBody: partial?.body,
                error: error, timings: timings))
            throw error
        }
    }

    /// Marks the exchange as holding only part of its response, and says how much of how much arrived.
    private func recordIncomplete(_ partial: RawResponse, _ failure: TransportError) {
        let received = partial.body.count
        let expected = partial.head.headerFields[.contentLength].flatMap { Int($0) }
        var attributes = ["status": String(partial.status.code), "receivedBytes": String(received), "reason": failure.kind.description]
        if let expected { attributes["expectedBytes"] = String(expected) }
        let amount = expected.map { "\(received) of \($0)" } ?? "\(received)"
        record(.incompleteResponse,
               "only \(amount) body bytes arrived (HTTP \(partial.status.code)): \(failure.kind)",
               attributes: attributes)
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
