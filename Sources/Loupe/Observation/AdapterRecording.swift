import Foundation
import HTTPTypes
import Synchronization

/// How an adapter around another networking stack (a swift-openapi-runtime middleware, an AsyncHTTPClient
/// wrapper, a URLSession protocol) reports an exchange to a ``ClientObserver``, such as the recorder: the same
/// ``ExchangeStarted`` / ``ExchangeFinished`` Loupe's client reports, so the recorder treats the exchange like
/// its own (redaction, body cap, live link, filters) with no second encoding. To an observer that
/// takes a whole exchange at once (``CompletedExchangeObserver``: the recorder), both are reported in one call when
/// the exchange ends.
///
/// The other stack sends the request once as far as the adapter can see, so the exchange has one attempt.
package struct AdapterRecording: Sendable {
    /// What the recording holds, behind one reference: an adapter copies its recording into every exchange and
    /// closure, and a copy of six stored fields was retains and releases of each.
    fileprivate final class Storage: Sendable {
        let observer: any ClientObserver
        let completed: (any CompletedExchangeObserver)?
        /// `completed != nil`, asked without copying the existential out.
        let reportsWhole: Bool
        let adapter: String
        let bodyCap: Int
        let clock: (@Sendable () -> Date)?
        let idSource: (@Sendable () -> UUID)?

        init(observer: any ClientObserver, adapter: String, bodyCap: Int, clock: (@Sendable () -> Date)?,
             idSource: (@Sendable () -> UUID)?) {
            self.observer = observer
            completed = observer as? any CompletedExchangeObserver
            reportsWhole = completed != nil
            self.adapter = adapter
            self.bodyCap = max(0, bodyCap)
            self.clock = clock
            self.idSource = idSource
        }
    }

    fileprivate let storage: Storage

    /// Where the exchanges go (a `NetworkTraceInspector`, or any observer).
    package var observer: any ClientObserver { storage.observer }
    /// `observer` when it takes a whole exchange in one call: asked once here, not cast on every exchange.
    var completed: (any CompletedExchangeObserver)? { storage.completed }
    /// The adapter's name (``RecordingAdapter``), stored with every exchange.
    package var adapter: String { storage.adapter }
    /// How many leading bytes of a response body are kept for the observer: the recorder's body cap.
    package var bodyCap: Int { storage.bodyCap }
    /// The clock; `nil` for the system's (`Date()` called directly: no closure context per call).
    var clock: (@Sendable () -> Date)? { storage.clock }
    /// The id source; `nil` for Loupe's client's (``ExchangeID/make(now:)`` stamped with the exchange's start, so
    /// the start time is read once, not twice).
    var idSource: (@Sendable () -> UUID)? { storage.idSource }

    /// An adapter named `adapter` reporting to `observer`, keeping at most `bodyCap` bytes of each body; `now` and
    /// `makeID` replace the clock and the id source (tests).
    package init(observer: any ClientObserver, adapter: String, bodyCap: Int = 1 << 20,
                now: (@Sendable () -> Date)? = nil, makeID: (@Sendable () -> UUID)? = nil) {
        storage = Storage(observer: observer, adapter: adapter, bodyCap: bodyCap, clock: now, idSource: makeID)
    }

    func now() -> Date { storage.clock?() ?? Date() }

    /// Reports that `request` (with its body bytes when in memory) is being sent as `operation`; `startedAt` when it
    /// started earlier than this call. To a ``CompletedExchangeObserver`` nothing is reported until the exchange
    /// finishes.
    package func start(operation: String, request: HTTPRequest, requestBody: Data?, startedAt: Date? = nil) -> AdapterExchange {
        let startedAt = startedAt ?? now()
        let started = ExchangeStarted(
            exchangeID: storage.idSource?() ?? ExchangeID.make(now: startedAt), operation: operation, request: request,
            requestBody: requestBody.map { $0.count > bodyCap ? $0.prefix(bodyCap) : $0 }, startedAt: startedAt,
            adapter: adapter)
        if !storage.reportsWhole { storage.observer.exchangeStarted(started) }
        return AdapterExchange(started: started, recording: self)
    }
}

/// One exchange an adapter is recording; finish it once with ``finish(response:body:bodySize:error:firstByte:)``,
/// or hand its body to a ``AdapterBodyTee`` that finishes it when the body ends.
package struct AdapterExchange: Sendable {
    /// What was (or, for a ``CompletedExchangeObserver``, will be) reported as the start.
    let started: ExchangeStarted
    let recording: AdapterRecording

    package var id: UUID { started.exchangeID }

    /// The body cap of the recording (how many bytes a tee keeps).
    package var bodyCap: Int { recording.bodyCap }

    /// Reports the end: the response head when one arrived, the body (or its first bytes with the whole `bodySize`),
    /// or the error. The outcome is `success` below 400, `httpError` from 400, and for an error `cancelled` or
    /// `transportError`.
    package func finish(response: HTTPResponse?, body: Data?, bodySize: Int? = nil, error: (any Error)? = nil,
                       firstByte: Date? = nil) {
        let endedAt = recording.now()
        let request = started.request
        let outcome: ExchangeOutcome
        var clientError: ClientError?
        if let error {
            let cancelled = error is CancellationError || (error as? TransportError)?.kind == .cancelled
            outcome = cancelled ? .cancelled : .transportError
            clientError = ClientError(
                operation: started.operation, request: request, response: nil, stage: cancelled ? .cancelled : .transport,
                underlyingError: error, exchangeID: started.exchangeID)
        } else {
            outcome = (response?.status.code ?? 0) >= 400 ? .httpError : .success
        }
        // The attempt made in its array (not copied into one), and the observer called where it is stored (not
        // copied out of its optional first): each copy was retains and releases of every field.
        let finished = ExchangeFinished(
            exchangeID: started.exchangeID, outcome: outcome, response: response, responseBody: body,
            responseBodySize: bodySize, error: clientError, endedAt: endedAt, attempts: [AttemptRecord(
                number: 1, request: request,
                timings: AttemptTimings(start: started.startedAt, firstByte: firstByte, end: endedAt),
                response: response, error: error.map { String(describing: $0) })])
        let storage = recording.storage
        if storage.reportsWhole {
            storage.completed?.exchangeCompleted(started, finished)
        } else {
            storage.observer.exchangeFinished(finished)
        }
    }
}

/// Keeps the first bytes of a response body as the app reads it, and finishes the exchange when the body ends,
/// fails, or is dropped unread: the body is streamed to the app once, never collected a second time.
package final class AdapterBodyTee: Sendable {
    private struct State {
        var prefix = Data()
        var size = 0
        var finished = false
    }

    private let exchange: AdapterExchange
    private let response: HTTPResponse
    private let firstByte: Date?
    private let state = Mutex(State())

    package init(exchange: AdapterExchange, response: HTTPResponse, firstByte: Date? = nil) {
        self.exchange = exchange
        self.response = response
        self.firstByte = firstByte
    }

    /// A chunk the app read: its first bytes up to the cap are kept.
    package func consume<Bytes: Collection<UInt8>>(_ chunk: Bytes) {
        let cap = exchange.bodyCap
        state.withLock { state in
            state.size += chunk.count
            let room = cap - state.prefix.count
            if room > 0 { state.prefix.append(contentsOf: chunk.prefix(room)) }
        }
    }

    /// The body ended (with `error` when it broke): reports the exchange, once.
    package func finish(error: (any Error)? = nil) {
        let taken: State? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            return state
        }
        guard let taken else { return }
        exchange.finish(response: response, body: taken.prefix, bodySize: taken.size > taken.prefix.count ? taken.size : nil,
                        error: error, firstByte: firstByte)
    }

    deinit {
        // Dropped before its end (the app did not read the whole body): what was read is still recorded.
        finish()
    }
}
