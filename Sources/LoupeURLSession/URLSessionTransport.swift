import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Loupe
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests with `URLSession`: the default transport on Apple platforms.
///
/// On Linux (swift-corelibs-foundation, backed by libcurl) it works but lacks: per-phase metrics
/// (`URLSessionTaskMetrics` never arrive, so only the first-byte time is approximate), server-trust challenges
/// (so no certificate pinning; use `AsyncHTTPClientTransport`), and `timeoutIntervalForResource`. A 401 carrying
/// `WWW-Authenticate` would hang forever unless a task-level challenge handler answers; there, every answer but
/// "cancel" hangs or crashes, so this transport cancels the challenge and returns the 401 it was shown — with its
/// status and headers but, on Linux only, without its body, which libcurl has not handed over at that point.
public final class URLSessionTransport: ClientTransport {
    /// The session requests go through.
    public let session: URLSession
    private let challenges: ChallengeAnswerer
    /// The pins checked in server-trust challenges, for a transport made with `init(configuration:pinning:)`.
    let serverTrust: ServerTrustPinning?

    /// Creates a session of its own with `configuration` (ephemeral by default, so nothing is cached or stored).
    public convenience init(configuration: URLSessionConfiguration = .ephemeral) {
        self.init(configuration: configuration, serverTrust: nil)
    }

    /// Creates a session whose server-trust challenges `serverTrust` answers, when given.
    init(configuration: URLSessionConfiguration, serverTrust: ServerTrustPinning?) {
        self.challenges = ChallengeAnswerer(serverTrust: serverTrust)
        self.serverTrust = serverTrust
        self.session = URLSession(configuration: configuration, delegate: challenges, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw TransportError(.other, "request has no absolute URL")
        }
        if let timeout = context.timeout {
            urlRequest.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        }
        if let body { urlRequest.httpBody = try await body.collect() }
        let box = TaskBox()
        let (data, response) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                // Classic completion-handler tasks: on Linux the async API never consults the delegate.
                let challenges = self.challenges, serverTrust = self.serverTrust
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let challenged = box.taskIdentifier.flatMap(challenges.takeChallengedResponse), !box.isCancelled {
                        continuation.resume(returning: (Data(), challenged))
                    } else if let refused = box.taskIdentifier.flatMap({ serverTrust?.takeFailure(taskIdentifier: $0) }) {
                        // A pinned session cancels a refused handshake: report the pin failure, not "cancelled".
                        refused.record(in: context)
                        continuation.resume(throwing: refused.transportError)
                    } else if let error {
                        continuation.resume(throwing: Self.map(error))
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: TransportError(.other, "no response"))
                    }
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
        // No request-sent or first-byte marks: the completion handler fires at the end, and marking then would
        // make the recorder (and HAR `wait`) lie; unknown phases stay unknown.
        guard let httpResponse = (response as? HTTPURLResponse)?.httpResponse else {
            throw TransportError(.other, "not an HTTP response")
        }
        return RawResponse(head: httpResponse, body: data)
    }

    static func map(_ error: any Error) -> any Error {
        guard let urlError = error as? URLError else { return TransportError(.other, String(describing: error)) }
        let kind: TransportError.Kind
        switch urlError.code {
        case .cancelled: kind = .cancelled
        case .timedOut: kind = .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet: kind = .connectFailed
        case .networkConnectionLost: kind = .connectionReset
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            kind = .tls
        default: kind = .other
        }
        return TransportError(kind, urlError.localizedDescription)
    }
}

/// Holds the data task so the cancellation handler can reach it (it may run before the task exists).
private final class TaskBox: Sendable {
    private let state = Mutex<(task: URLSessionTask?, cancelled: Bool)>((nil, false))

    func set(_ task: URLSessionTask) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    var taskIdentifier: Int? { state.withLock { $0.task?.taskIdentifier } }
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        state.withLock { state -> URLSessionTask? in
            state.cancelled = true
            return state.task
        }?.cancel()
    }
}

/// Answers authentication challenges so libcurl-backed sessions never wait forever on a 401.
private final class ChallengeAnswerer: NSObject, URLSessionTaskDelegate, Sendable {
    /// The 401 responses seen in challenges, by task, until the task's completion handler collects them.
    private let challenged = Mutex<[Int: HTTPURLResponse]>([:])
    /// Answers server-trust challenges when the transport is pinned.
    private let serverTrust: ServerTrustPinning?

    init(serverTrust: ServerTrustPinning?) {
        self.serverTrust = serverTrust
        super.init()
    }

    func takeChallengedResponse(_ taskIdentifier: Int) -> HTTPURLResponse? {
        challenged.withLock { $0.removeValue(forKey: taskIdentifier) }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Darwin)
        if let serverTrust, serverTrust.answer(challenge, task: task, completionHandler: completionHandler) { return }
        // Apple's stack delivers the 401 with its body after default handling, and evaluates server trust itself.
        completionHandler(.performDefaultHandling, nil)
        #else
        // swift-corelibs-foundation: default handling hangs and `.useCredential` with nil traps, so keep the
        // response the challenge carries and cancel; the completion handler then returns that response.
        if let response = challenge.failureResponse as? HTTPURLResponse {
            challenged.withLock { $0[task.taskIdentifier] = response }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
        #endif
    }
}
