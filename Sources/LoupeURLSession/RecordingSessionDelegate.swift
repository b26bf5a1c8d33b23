import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Loupe
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records the tasks of a `URLSession` by standing in as its delegate, in front of the app's own delegate (or none),
/// which still hears every delegate call: the requests are loaded once, by the app's session, as they always were
/// before. Recording costs about one and a half times what it costs Loupe's own client; ``LoupeURLProtocol``
/// instead loads each request a second time through a session of its own, at four to five times: use
/// it where only the configuration can change.
///
/// ```swift
/// let recording = RecordingSessionDelegate(recorder: inspector, forwardingTo: appDelegate)
/// let session = URLSession(configuration: .default, delegate: recording, delegateQueue: nil)
/// session.dataTask(with: request).resume()   // the app's delegate gets its calls; the exchange is recorded
/// ```
/// What is recorded, per task that calls the session's delegate: method, URL, the request's header fields (with the
/// configuration's additional headers) and in-memory body (`httpBody`), the response's status and header fields,
/// the body's first bytes up to the cap as the delegate receives them (kept when the task then fails), errors (a
/// cancelled task is recorded `cancelled`), operation `METHOD /path`, and an `adapter` event naming `urlsession`
/// (the stack, as for ``LoupeURLProtocol``).
///
/// Which tasks call a session's delegate is URLSession's choice, and it differs by platform:
/// - **Linux (FoundationNetworking)**, tested: tasks made without a completion handler (`dataTask(with:)`,
///   `uploadTask(withStreamedRequest:)`…) call it; tasks with a completion handler and the async `data(for:)` do
///   not, so they are not recorded (use ``LoupeURLProtocol`` for those). No callback marks a task's start and task
///   metrics never arrive, so an exchange's start is the first callback (the response head, for a request without
///   a body): the time waiting for the server is not in its duration.
/// - **Apple platforms**, not run in this project's CI: the same tasks, and the start comes from the task's metrics
///   (`taskInterval`); async tasks reach the session's delegate only at their end, and are recorded with the
///   response head but without a body. Delegate methods the proxy does not observe are forwarded by the
///   Objective-C runtime (`forwardingTarget(for:)`), as Pulse's proxy does.
public final class RecordingSessionDelegate: NSObject, Sendable {
    let recording: AdapterRecording
    #if canImport(FoundationNetworking)
    /// The app's delegate, as each delegate protocol: cast once here, not on every call.
    let forwarded: (any URLSessionDelegate)?
    let forwardedTask: (any URLSessionTaskDelegate)?
    let forwardedData: (any URLSessionDataDelegate)?
    let forwardedDownload: (any URLSessionDownloadDelegate)?
    let forwardedWebSocket: (any URLSessionWebSocketDelegate)?
    #else
    // nonisolated(unsafe): the app's delegate is called from the session's delegate queue, exactly as the session
    // would call it without this proxy in front; the reference itself never changes after `init`.
    nonisolated(unsafe) let forwarded: (any URLSessionDelegate)?
    #endif

    /// What is known of each task in flight, by the task's identity (removed when it completes).
    private let flights = Mutex<[ObjectIdentifier: Flight]>([:])
    /// The last session's additional header fields: reading `URLSession.configuration` copies the configuration.
    private let sessionFields = Mutex<SessionFields?>(nil)

    struct Flight {
        var startedAt: Date
        var response: HTTPResponse?
        var firstByte: Date?
        var body = Data()
        var size = 0

        /// Keeps `data`'s bytes up to `cap`; a whole body that came in one piece is kept as it is, not copied.
        mutating func keep(_ data: Data, cap: Int) {
            size += data.count
            if body.isEmpty, data.count <= cap {
                body = data
            } else if body.count < cap {
                body.append(data.prefix(cap - body.count))
            }
        }
    }

    struct SessionFields {
        weak var session: URLSession?
        let fields: [(HTTPField.Name, String)]
    }

    /// Records the tasks of the session this is the delegate of into `recorder` (a `NetworkTraceInspector`, or any
    /// observer), keeping at most `bodyCap` bytes of each body (pass the inspector's `configuration.bodyCap`), and
    /// forwards every delegate call to `delegate`, the app's own.
    public init(recorder: any ClientObserver, bodyCap: Int = 1 << 20, forwardingTo delegate: (any URLSessionDelegate)? = nil) {
        recording = AdapterRecording(observer: recorder, adapter: RecordingAdapter.urlSession, bodyCap: bodyCap)
        forwarded = delegate
        #if canImport(FoundationNetworking)
        forwardedTask = delegate as? any URLSessionTaskDelegate
        forwardedData = delegate as? any URLSessionDataDelegate
        forwardedDownload = delegate as? any URLSessionDownloadDelegate
        forwardedWebSocket = delegate as? any URLSessionWebSocketDelegate
        #endif
    }

    /// How many tasks are in flight (tests: a completed task leaves nothing behind).
    package var tasksInFlight: Int { flights.withLock { $0.count } }

    // MARK: What the proxy observes (each method also forwards, in the platform's file)

    /// A task of this session called its delegate: it is in flight from now unless it was already.
    func began(_ task: URLSessionTask, in session: URLSession) {
        // Only as the session's delegate: a per-task delegate (`data(for:delegate:)`) is never told on Linux that
        // its task completed, so what it saw would stay here.
        guard session.delegate === self else { return }
        let id = ObjectIdentifier(task)
        flights.withLock { flights in
            if flights[id] == nil { flights[id] = Flight(startedAt: Date()) }
        }
    }

    func received(_ response: URLResponse, task: URLSessionTask, in session: URLSession) {
        guard session.delegate === self, let http = response as? HTTPURLResponse else { return }
        let now = Date()
        let head = http.recordedHead
        flights.withLock { flights in
            // One lookup for both (each hashes the task's identity).
            Self.heard(head, at: now, in: &flights[ObjectIdentifier(task), default: Flight(startedAt: now)])
        }
    }

    private static func heard(_ head: HTTPResponse?, at now: Date, in flight: inout Flight) {
        flight.response = head
        flight.firstByte = now
    }

    func received(_ data: Data, task: URLSessionTask, in session: URLSession) {
        guard session.delegate === self else { return }
        let cap = recording.bodyCap
        flights.withLock { flights in
            flights[ObjectIdentifier(task), default: Flight(startedAt: Date())].keep(data, cap: cap)
        }
    }

    /// The task's start from its metrics, where the platform delivers them (not FoundationNetworking).
    func collected(start: Date, task: URLSessionTask, in session: URLSession) {
        guard session.delegate === self else { return }
        flights.withLock { flights in
            flights[ObjectIdentifier(task), default: Flight(startedAt: start)].startedAt = start
        }
    }

    /// The task's last call: its exchange is reported, once.
    func completed(_ task: URLSessionTask, error: (any Error)?, in session: URLSession) {
        guard session.delegate === self else { return }
        let flight = flights.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
        let request = task.originalRequest ?? task.currentRequest
        var head = request?.recordedHead ?? HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/")
        head.addMissing(additionalFields(of: session))
        let exchange = recording.start(
            operation: AdapterRequestHead.operationName(head), request: head, requestBody: request?.httpBody,
            startedAt: flight?.startedAt)
        let bodySize = flight.flatMap { $0.size > $0.body.count ? $0.size : nil }
        if let error {
            // The app cancelled its task: recorded as cancelled, not failed (as Loupe's client records it). What
            // came of the body before the end is kept, as the other adapters keep it.
            let cancelled = (error as? URLError)?.code == .cancelled
            exchange.finish(response: flight?.response, body: flight.map(\.body), bodySize: bodySize,
                            error: cancelled ? CancellationError() : error, firstByte: flight?.firstByte)
            return
        }
        let response = flight?.response ?? (task.response as? HTTPURLResponse)?.recordedHead
        exchange.finish(response: response, body: flight.map(\.body), bodySize: bodySize, firstByte: flight?.firstByte)
    }

    /// The configuration's additional header fields, as the session sends them, read once per session.
    private func additionalFields(of session: URLSession) -> [(HTTPField.Name, String)] {
        if let cached = sessionFields.withLock({ $0 }), cached.session === session { return cached.fields }
        let fields = session.configuration.additionalFields()
        sessionFields.withLock { $0 = SessionFields(session: session, fields: fields) }
        return fields
    }
}
