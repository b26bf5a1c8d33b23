import Foundation
import HTTPTypes
import Synchronization

/// Marks the milestones of one attempt; transports call it as the bytes move.
public final class AttemptHandle: Sendable {
    /// 1 for the first try of an exchange.
    public let number: Int
    private let now: @Sendable () -> Date
    /// The timings, and what ``markRewritten(_:body:)`` said: one lock for both, taken once more at the end.
    private let state: Mutex<(timings: AttemptTimings, wire: WireRequest?)>

    init(number: Int, start: Date, now: @escaping @Sendable () -> Date) {
        self.number = number
        self.now = now
        self.state = Mutex((AttemptTimings(start: start), nil))
    }

    /// The request head and body have been written.
    public func markRequestSent() { state.withLock { if $0.timings.requestSent == nil { $0.timings.requestSent = now() } } }
    /// The response head arrived.
    public func markFirstByte() { state.withLock { if $0.timings.firstByte == nil { $0.timings.firstByte = now() } } }

    /// The transport sends `head` (and `body`, when not `nil`) instead of the request it was given: a rule rewrote
    /// it, or someone edited it at a breakpoint. The attempt's record keeps both, so the recorder stores what went on
    /// the wire with what the app asked for beside it. Call it only when something changed.
    public func markRewritten(_ head: HTTPRequest, body: Data?) {
        let sent = WireRequest(head: head, body: body)
        state.withLock { $0.wire = sent }
    }

    /// Ends the attempt's timings; returns them with what ``markRewritten(_:body:)`` said, if anything.
    func finish() -> (timings: AttemptTimings, wire: WireRequest?) {
        let end = now()
        return state.withLock {
            $0.timings.end = end
            return $0
        }
    }
}

/// The per-exchange bookkeeping shared by every attempt: numbering, timing and reporting each attempt as one
/// ``AttemptRecord``, built here once and handed unchanged to observers, the caller and the recorder.
final class ExchangeTracker: Sendable {
    let exchangeID: UUID
    /// The exchange's operation name and the clock its middleware wait on, read through ``RequestContext``.
    let operation: String
    let clock: any Clock<Duration>
    /// The authority the client checked before the exchange started (``RequestTargetCheck``): an attempt, and the
    /// transport under it, check a request's authority again only when a middleware changed it.
    let checkedAuthority: Optional<String>
    let observer: any ClientObserver
    let now: @Sendable () -> Date
    private let attempts = Mutex<[AttemptRecord]>([])
    /// The last response a retry answered with another attempt (``keepAnswerBeforeRetry(_:)``): written only when a
    /// retry follows a response, so a request without retries never takes this lock.
    private let answerBeforeRetry = Mutex<RawResponse?>(nil)

    init(
        exchangeID: UUID, operation: String, clock: any Clock<Duration>, checkedAuthority: String? = nil,
        observer: any ClientObserver, now: @escaping @Sendable () -> Date
    ) {
        self.exchangeID = exchangeID
        self.operation = operation
        self.clock = clock
        self.checkedAuthority = checkedAuthority
        self.observer = observer
        self.now = now
    }

    var attemptCount: Int { attempts.withLock { $0.count } }
    /// Every attempt so far, in order (finished ones with their end, status or error).
    var records: [AttemptRecord] { attempts.withLock { $0 } }

    /// Keeps `response`, which a retry is about to answer with another attempt: if a policy then refuses that
    /// attempt (an open circuit), the exchange ends with the server's last real answer beside the refusal, not
    /// with nothing (its `Retry-After` and body were otherwise gone).
    func keepAnswerBeforeRetry(_ response: RawResponse) { answerBeforeRetry.withLock { $0 = response } }

    /// The response kept by ``keepAnswerBeforeRetry(_:)``, if any.
    var lastAnswerBeforeRetry: RawResponse? { answerBeforeRetry.withLock { $0 } }

    func record(_ kind: ExchangeEventKind, _ message: String, attributes: [String: String]) {
        observer.eventRecorded(ExchangeEvent(exchangeID: exchangeID, kind: kind, at: now(), message: message, attributes: attributes))
    }

    /// Runs one attempt through the transport, numbering, timing and reporting it.
    nonisolated(nonsending) func runAttempt(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        transport: any ClientTransport
    ) async throws -> RawResponse {
        let start = now()
        // The record is built in the array and finished there, under the lock; what leaves is one copy for each
        // observer call. Each copy of a record retains its request's and response's storage, its
        // notes and its error (≈ 9 reference counts), and the record had been copied four times and destroyed five.
        let (number, started) = attempts.withLock {
            $0.append(AttemptRecord(
                number: $0.count + 1, request: request, timings: AttemptTimings(start: start), annotations: context.annotations))
            return ($0.count, AttemptStarted(exchangeID: exchangeID, record: $0[$0.count - 1]))
        }
        let handle = AttemptHandle(number: number, start: start, now: now)
        var context = context
        context.attempt = handle
        observer.attemptStarted(started)
        do {
            // Again here, for authorities a middleware rewrote: no transport may see an unusable port.
            if !context.targetChecked(request), let problem = RequestTargetCheck.problem(in: request) { throw problem }
            let response = try await transport.send(request, body: body, context: context)
            let (timings, wire) = handle.finish()
            let record = finish(number, timings: timings, response: response.head, error: nil, wire: wire)
            observer.attemptFinished(AttemptFinished(
                exchangeID: exchangeID, record: record, responseBody: response.body, responseBodySize: response.bodySize))
            return response
        } catch {
            let partial = (error as? TransportError)?.partialResponse
            let (timings, wire) = handle.finish()
            let record = finish(number, timings: timings, response: partial?.head, error: String(describing: error), wire: wire)
            if let partial, let failure = error as? TransportError { recordIncomplete(partial, failure, answering: request.method) }
            observer.attemptFinished(AttemptFinished(
                exchangeID: exchangeID, record: record, responseBody: partial?.body, responseBodySize: partial?.bodySize, error: error))
            throw error
        }
    }

    /// Marks the exchange as holding only part of its response, and says how much of how much arrived.
    private func recordIncomplete(_ partial: RawResponse, _ failure: TransportError, answering method: HTTPRequest.Method) {
        let received = partial.fullBodySize
        // Only a length that counts the bytes handed on (not a compressed body's wire length).
        let expected = StreamedResponse.expectedBodyLength(of: partial.head, answering: method).map { Int($0) }
        var attributes = ["status": String(partial.status.code), "receivedBytes": String(received), "reason": failure.kind.description]
        if let expected { attributes["expectedBytes"] = String(expected) }
        let amount = expected.map { "\(received) of \($0)" } ?? "\(received)"
        // Past the point of no return the count is what the sink took, which may be less than what arrived.
        let verb = failure.kind == .deliveryInterrupted ? "were delivered" : "arrived"
        record(.incompleteResponse,
               "only \(amount) body bytes \(verb) (HTTP \(partial.status.code)): \(failure.kind)",
               attributes: attributes)
    }

    /// Finishes attempt `number`'s record in place and returns a copy of it.
    private func finish(_ number: Int, timings: AttemptTimings, response: HTTPResponse?, error: String?,
                        wire: WireRequest?) -> AttemptRecord {
        attempts.withLock {
            $0[number - 1].timings = timings
            if let wire { $0[number - 1].wire = wire }
            $0[number - 1].response = response
            $0[number - 1].error = error
            return $0[number - 1]
        }
    }
}
