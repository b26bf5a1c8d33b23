import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Loupe
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionConfiguration {
    /// This configuration with ``LoupeURLProtocol`` first in `protocolClasses`: every HTTP request of a session
    /// made with it is recorded into `recorder` (a `NetworkTraceInspector`, or any observer), its body capped at
    /// `bodyCap` bytes (pass the inspector's `configuration.bodyCap`).
    ///
    /// ```swift
    /// let session = URLSession(configuration: .ephemeral.recorded(by: inspector))
    /// let (data, response) = try await session.data(from: url)
    /// ```
    /// Works on Apple platforms and on Linux (FoundationNetworking); see ``LoupeURLProtocol`` for what is recorded.
    public func recorded(by recorder: any ClientObserver, bodyCap: Int = 1 << 20) -> URLSessionConfiguration {
        // A copy: the app's own configuration object is left as it was.
        let configuration = copy() as! URLSessionConfiguration
        let token = LoupeURLProtocol.register(
            AdapterRecording(observer: recorder, adapter: RecordingAdapter.urlSession, bodyCap: bodyCap),
            loading: self)
        var headers = configuration.httpAdditionalHeaders ?? [:]
        headers[LoupeURLProtocol.recorderHeader] = token
        configuration.httpAdditionalHeaders = headers
        configuration.protocolClasses = [LoupeURLProtocol.self] + (configuration.protocolClasses ?? [])
        return configuration
    }
}

/// A `URLProtocol` that records each HTTP request of a session whose configuration has it in `protocolClasses`
/// (``Foundation/URLSessionConfiguration/recorded(by:bodyCap:)``), then loads it with a session of its own made
/// from the app's configuration (without this protocol), and hands the result to the app's session.
///
/// What is recorded: method, URL, the request's header fields (with the configuration's additional headers) and
/// body when in memory (`httpBody`; a `httpBodyStream` is sent but not recorded), the response's status, header
/// fields and body (first bytes up to the cap), errors and timings; operation `METHOD /path`. The response body is
/// loaded whole before the app's session sees it (one request, one inner data task), so progress delegates see
/// it arrive at once. Redirects are followed by the inner session and recorded as the final response.
///
/// Cancelling the app's task cancels the inner request, and the exchange is recorded as cancelled.
///
/// Platforms: tested on Linux's FoundationNetworking (which calls `startLoading` on a queue the inner session's
/// work queue targets, so the inner task starts from another queue, or it waits on itself). On Apple platforms the same code compiles and runs through Foundation's URL loading system.
///
/// Cost: each request is loaded twice (the app's session hands it to this protocol, which loads it again), between
/// four and five times what recording costs Loupe's own client. Where the app makes the session itself, put a
/// ``RecordingSessionDelegate`` in front of its delegate instead.
public final class LoupeURLProtocol: URLProtocol {

    /// The header `recorded(by:)` adds to name the recorder; removed before the request is sent.
    static let recorderHeader = "X-Loupe-Recorder"

    private struct Registered {
        let recording: AdapterRecording
        let session: URLSession
        /// The inner session's additional header fields (without the token), read once: `URLSession.configuration`
        /// returns a copy of the configuration on every read.
        let additionalFields: [(HTTPField.Name, String)]
    }

    private static let registry = Mutex<(next: Int, entries: [String: Registered], last: String?)>((0, [:], nil))

    /// Keeps `recording` (and an inner session made from `configuration`) for the sessions made with the token.
    static func register(_ recording: AdapterRecording, loading configuration: URLSessionConfiguration) -> String {
        let inner = configuration.copy() as! URLSessionConfiguration
        inner.protocolClasses = (inner.protocolClasses ?? []).filter { $0 != LoupeURLProtocol.self }
        let session = URLSession(configuration: inner)
        let fields = session.configuration.additionalFields(except: Self.recorderHeader)
        return registry.withLock { registry in
            registry.next += 1
            let token = String(registry.next)
            registry.entries[token] = Registered(recording: recording, session: session, additionalFields: fields)
            registry.last = token
            return token
        }
    }

    private static func registered(_ token: String?) -> Registered? {
        registry.withLock { registry in
            // FoundationNetworking adds the configuration's additional headers after the protocol is chosen, so
            // the token may be missing from the request: then the last recorder registered is used.
            (token.flatMap { registry.entries[$0] }) ?? registry.last.flatMap { registry.entries[$0] }
        }
    }

    private let loading = Mutex<InnerLoad?>(nil)
    /// Set by `stopLoading`: the app's task is gone from its session, and FoundationNetworking traps if its client
    /// hears of it again.
    fileprivate let stopped = Atomic<Bool>(false)

    public override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    public override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    public override func startLoading() {
        var outgoing = request
        let token = outgoing.value(forHTTPHeaderField: Self.recorderHeader)
        // Removed only when it is there: setting a field copies the whole request (`outgoing` shares Foundation's
        // request object with `request`), a large copy, and FoundationNetworking adds the configuration's
        // headers, the token among them, only after this point, so it usually is not.
        if token != nil { outgoing.setValue(nil, forHTTPHeaderField: Self.recorderHeader) }
        guard let registered = Self.registered(token) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unknown))
            return
        }
        var head = outgoing.recordedHead ?? HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/")
        // The session's own additional headers, as it would send them (the request's own fields win).
        head.addMissing(registered.additionalFields)
        let exchange = registered.recording.start(
            operation: AdapterRequestHead.operationName(head), request: head, requestBody: outgoing.httpBody)
        let loader = Loader(self)
        let load = InnerLoad(session: registered.session, request: outgoing) { data, response, error in
            if let error {
                // The app's task was cancelled (stopLoading cancelled this one): recorded as cancelled, not failed.
                let cancelled = (error as? URLError)?.code == .cancelled
                exchange.finish(response: nil, body: nil, error: cancelled ? CancellationError() : error)
                loader.fail(error)
                return
            }
            guard let http = response as? HTTPURLResponse else {
                let failure = URLError(.badServerResponse)
                exchange.finish(response: nil, body: nil, error: failure)
                loader.fail(failure)
                return
            }
            let cap = registered.recording.bodyCap
            let body = data ?? Data()
            exchange.finish(response: http.recordedHead, body: body.prefix(cap),
                            bodySize: body.count > cap ? body.count : nil)
            loader.deliver(http, body: body)
        }
        loading.withLock { $0 = load }
        // Not on this queue: FoundationNetworking calls `startLoading` on a queue that every session's work queue
        // targets, and the inner session's `dataTask`/`resume` wait on their own work queue: started from here,
        // they waited on the queue they ran on (`__DISPATCH_WAIT_FOR_QUEUE__`).
        DispatchQueue.global().async { load.start() }
    }

    public override func stopLoading() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        let load = loading.withLock { load in
            defer { load = nil }
            return load
        }
        // Off this queue for the same reason as `startLoading`.
        if let load { DispatchQueue.global().async { load.cancel() } }
    }
}

/// The inner session's task for one request, started and cancelled off the loading system's queue; a cancel that
/// comes first means it never starts.
private final class InnerLoad: Sendable {
    private enum State {
        case waiting
        case running(URLSessionDataTask)
        case cancelled
    }

    private let session: URLSession
    private let request: URLRequest
    private let completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    // URLSessionDataTask is not Sendable in FoundationNetworking's declarations but is documented thread-safe
    // (resume and cancel may be called from any thread); the mutex orders start against cancel.
    private let state = Mutex<State>(.waiting)

    init(session: URLSession, request: URLRequest,
         completion: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) {
        self.session = session
        self.request = request
        self.completion = completion
    }

    func start() {
        let task: URLSessionDataTask? = state.withLock { state in
            guard case .waiting = state else { return nil }
            let task = session.dataTask(with: request, completionHandler: completion)
            state = .running(task)
            return task
        }
        task?.resume()
    }

    func cancel() {
        let (task, wasWaiting): (URLSessionDataTask?, Bool) = state.withLock { state in
            defer { state = .cancelled }
            switch state {
            case .running(let task): return (task, false)
            case .waiting: return (nil, true)
            case .cancelled: return (nil, false)
            }
        }
        task?.cancel()
        // Never started: the exchange still ends, as cancelled.
        if wasWaiting { completion(nil, nil, URLError(.cancelled)) }
    }
}

/// Hands the inner task's result to the app's session.
// @unchecked Sendable: Foundation marks URLProtocol non-Sendable, but the loading system expects exactly this: a
// protocol's client called from the inner session's delegate queue, once, after `startLoading` returned. The box
// is used by that one completion handler only, so the protocol is never touched from two threads at once.
private struct Loader: @unchecked Sendable {
    let owner: LoupeURLProtocol

    init(_ owner: LoupeURLProtocol) { self.owner = owner }

    func fail(_ error: any Error) {
        guard !owner.stopped.load(ordering: .sequentiallyConsistent) else { return }
        owner.client?.urlProtocol(owner, didFailWithError: error)
    }

    func deliver(_ response: HTTPURLResponse, body: Data) {
        guard !owner.stopped.load(ordering: .sequentiallyConsistent) else { return }
        owner.client?.urlProtocol(owner, didReceive: response, cacheStoragePolicy: .notAllowed)
        if !body.isEmpty { owner.client?.urlProtocol(owner, didLoad: body) }
        owner.client?.urlProtocolDidFinishLoading(owner)
    }
}
