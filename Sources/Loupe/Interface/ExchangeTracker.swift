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

/// The per-exchange bookkeeping shared by every attempt: numbering, timing and reporting each attempt as one
/// ``AttemptRecord``, built here once and handed unchanged to observers, the caller and the recorder.
final class ExchangeTracker: Sendable {
    let exchangeID: UUID
    /// The exchange's operation name and the clock its middleware wait on, read through ``RequestContext``.
    let operation: String
    let clock: any Clock<Duration>
    let observer: any ClientObserver
    let now: @Sendable () -> Date
    private let attempts = Mutex<[AttemptRecord]>([])

    init(
        exchangeID: UUID, operation: String, clock: any Clock<Duration>, observer: any ClientObserver,
        now: @escaping @Sendable () -> Date
    ) {
        self.exchangeID = exchangeID
        self.operation = operation
        self.clock = clock
        self.observer = observer
        self.now = now
    }

    var attemptCount: Int { attempts.withLock { $0.count } }
    /// Every attempt so far, in order (finished ones with their end, status or error).
    var records: [AttemptRecord] { attempts.withLock { $0 } }

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
        var record = attempts.withLock {
            let record = AttemptRecord(
                number: $0.count + 1, request: request, timings: AttemptTimings(start: start), annotations: context.annotations)
            $0.append(record)
            return record
        }
        let handle = AttemptHandle(number: record.number, start: start, now: now)
        var context = context
        context.attempt = handle
        observer.attemptStarted(AttemptStarted(exchangeID: exchangeID, record: record))
        do {
            // Again here, for authorities a middleware rewrote: no transport may see an unusable port.
            if let problem = RequestTargetCheck.problem(in: request) { throw problem }
            let response = try await transport.send(request, body: body, context: context)
            record.timings = handle.finish()
            record.response = response.head
            store(record)
            observer.attemptFinished(AttemptFinished(
                exchangeID: exchangeID, record: record, responseBody: response.body, responseBodySize: response.bodySize))
            return response
        } catch {
            record.timings = handle.finish()
            let partial = (error as? TransportError)?.partialResponse
            record.response = partial?.head
            record.error = String(describing: error)
            store(record)
            if let partial, let failure = error as? TransportError { recordIncomplete(partial, failure, answering: request.method) }
            observer.attemptFinished(AttemptFinished(
                exchangeID: exchangeID, record: record, responseBody: partial?.body, responseBodySize: partial?.bodySize, error: error))
            throw error
        }
    }

    /// Marks the exchange as holding only part of its response, and says how much of how much arrived.
    private func recordIncomplete(_ partial: RawResponse, _ failure: TransportError, answering method: HTTPRequest.Method) {
        let received = partial.fullBodySize
        // Only a length that counts the bytes handed on (not a compressed body's wire length): DECISIONS 140.
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

    private func store(_ record: AttemptRecord) {
        attempts.withLock { $0[record.number - 1] = record }
    }
}
