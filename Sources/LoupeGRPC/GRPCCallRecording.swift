import Foundation
import GRPCCore
import HTTPTypes
import Loupe
import LoupeTrace
import Synchronization

/// One call (one attempt, as grpc-swift runs interceptors) being recorded: started when made, its messages reported
/// as they pass, finished once at its status, or when dropped unread.
final class GRPCCallRecording: Sendable {
    private struct State {
        var initialMetadata: Metadata?
        var trailers: Metadata?
        var firstByte: Date?
        var attempt = 1
        var finished = false
    }

    private let observer: any ClientObserver
    private let now: @Sendable () -> Date
    private let id: UUID
    private let method: String
    private let request: HTTPRequest
    private let startedAt: Date
    /// When the call's deadline passes (from the `grpc-timeout` grpc-swift set on the request), if it has one.
    private let deadline: Date?
    /// When grpc-swift wrote `grpc-timeout`: the transport was asked for the stream (``LoupeGRPCTransport``), else
    /// when this started.
    private let timeoutWrittenAt: Date
    private let state = Mutex(State())

    /// `waited` is how long the call waited for its stream before the interceptor ran (``GRPCStreamRequest``).
    init(observer: any ClientObserver, now: @escaping @Sendable () -> Date, method: String, peer: String,
         metadata: Metadata, replayOf: UUID? = nil, waited: Duration = .zero) {
        self.observer = observer
        self.now = now
        self.method = method
        let startedAt = now()
        self.startedAt = startedAt
        id = ExchangeID.make(now: startedAt)
        var fields = HTTPFields()
        fields[.contentType] = "application/grpc"
        fields[Self.te] = "trailers"
        Self.append(metadata, to: &fields)
        let timeoutWrittenAt = startedAt.addingTimeInterval(-Double(waited.components.seconds)
                                                            - Double(waited.components.attoseconds) * 1e-18)
        self.timeoutWrittenAt = timeoutWrittenAt
        deadline = metadata[stringValues: "grpc-timeout"].first { _ in true }.flatMap(GRPCTimeout.seconds)
            .map { timeoutWrittenAt.addingTimeInterval($0) }
        request = HTTPRequest(method: .post, scheme: "http", authority: Self.authority(peer), path: "/" + method,
                              headerFields: fields)
        observer.exchangeStarted(ExchangeStarted(
            exchangeID: id, operation: method, request: request, startedAt: startedAt, replayOf: replayOf,
            adapter: RecordingAdapter.grpcSwift, stream: .grpc))
    }

    /// A message that went out or came in: its serialized bytes (or nothing, when they cannot be known).
    func message<Message>(_ direction: MessageDirection, _ message: Message) {
        let bytes = GRPCMessageBytes.of(message)
        observer.messageRecorded(ExchangeMessage(
            exchangeID: id, direction: direction, at: now(), type: bytes == nil ? "opaque" : "message",
            payload: bytes ?? Data(), stream: .grpc))
    }

    /// The server's initial metadata: the call was accepted.
    func accepted(metadata: Metadata) {
        let at = now()
        state.withLock { state in
            state.initialMetadata = metadata
            state.firstByte = at
            state.attempt = Self.attempt(metadata) ?? state.attempt
        }
    }

    func trailers(_ trailers: Metadata) {
        state.withLock { $0.trailers = trailers }
    }

    /// The app's request producer threw: the response side sees the call end and finishes it.
    func requestFailed(_ error: any Error) {}

    /// The call ended: with `OK` when `error` is nil, else with the error's status.
    func finish(error: (any Error)?) {
        let endedAt = now()
        guard let taken = state.withLock({ state -> State? in
            guard !state.finished else { return nil }
            state.finished = true
            return state
        }) else { return }
        var (code, message, errorMetadata) = Self.status(error)
        // A cancellation is the client's doing (the app's task, or grpc-swift at the deadline).
        let byClient = code == 1
        // grpc-swift ends a call whose deadline passed by cancelling it, and says DEADLINE_EXCEEDED only outside the
        // interceptors: a cancellation at the deadline is that. The deadline is counted from when grpc-swift wrote
        // it; what still lies between that and the clock read here (the task that asks for the stream starting late
        // on a busy machine) is covered by counting the last tenth of the time, and at least the last 50 ms.
        if code == 1, let deadline,
           endedAt.timeIntervalSince(deadline) > -max(0.1 * deadline.timeIntervalSince(timeoutWrittenAt), 0.05) {
            code = 4
            if message.isEmpty { message = "deadline exceeded" }
        }
        let answered = taken.initialMetadata != nil || !(errorMetadata?.isEmpty ?? true)
        var fields = HTTPFields()
        if let initial = taken.initialMetadata { Self.append(initial, to: &fields) }
        if let trailers = taken.trailers ?? errorMetadata { Self.append(trailers, to: &fields) }
        fields.append(HTTPField(name: Self.grpcStatus, value: String(code)))
        if !message.isEmpty { fields.append(HTTPField(name: Self.grpcMessage, value: message)) }
        let attempt = taken.initialMetadata == nil ? errorMetadata.flatMap(Self.attempt) ?? taken.attempt : taken.attempt
        let response = answered ? HTTPResponse(status: .ok, headerFields: fields) : nil
        let cancelled = code == 1
        let outcome: ExchangeOutcome = code == 0 ? .success : cancelled ? .cancelled : answered ? .httpError : .transportError
        let errorText = code == 0 ? nil : "\(GRPCStatusName.name(code))\(message.isEmpty ? "" : ": \(message)")"
        observer.eventRecorded(ExchangeEvent(
            exchangeID: id, kind: .streamClose, at: endedAt, message: "gRPC status \(errorText ?? "OK")",
            attributes: ["code": String(code), "reason": message, "by": byClient ? "client" : "server"]))
        observer.exchangeFinished(ExchangeFinished(
            exchangeID: id, outcome: outcome, response: response,
            error: error.map { ClientError(operation: method, request: request, stage: cancelled ? .cancelled : .transport,
                                           underlyingError: $0, exchangeID: id) },
            endedAt: endedAt, attempts: [AttemptRecord(
                number: attempt, request: request,
                timings: AttemptTimings(start: startedAt, firstByte: taken.firstByte, end: endedAt),
                response: response, error: errorText)]))
    }

    deinit {
        // Dropped before its end (the app stopped reading the response): what was seen is still recorded.
        finish(error: CancellationError())
    }

    private static let te = HTTPField.Name("te")!
    private static let grpcStatus = HTTPField.Name("grpc-status")!
    private static let grpcMessage = HTTPField.Name("grpc-message")!

    /// The status code, message and trailers an error stands for: a task's cancellation is `CANCELLED`, anything
    /// that is not an `RPCError` `UNKNOWN`.
    private static func status(_ error: (any Error)?) -> (code: Int, message: String, metadata: Metadata?) {
        switch error {
        case nil: (0, "", nil)
        case let error as RPCError: (error.code.rawValue, error.message, error.metadata)
        case is CancellationError: (1, "", nil)
        case let error?: (2, String(describing: error), nil)
        }
    }

    /// The attempt number grpc-swift's retry and hedging put on the response's metadata
    /// (`grpc-previous-rpc-attempts`), read back as 1-based.
    private static func attempt(_ metadata: Metadata) -> Int? {
        for value in metadata[stringValues: "grpc-previous-rpc-attempts"] {
            if let previous = Int(value), (0..<1_000).contains(previous) { return previous + 1 }
        }
        return nil
    }

    /// Metadata as header fields: names gRPC allows that HTTP does too; binary (`-bin`) values in base64, as sent.
    private static func append(_ metadata: Metadata, to fields: inout HTTPFields) {
        for (key, value) in metadata {
            guard let name = HTTPField.Name(key) else { continue }
            fields.append(HTTPField(name: name, value: value.encoded()))
        }
    }

    /// The authority of a grpc-swift peer (`ipv4:127.0.0.1:50051`, `ipv6:[::1]:50051`, `unix:/path`).
    static func authority(_ peer: String) -> String {
        for prefix in ["ipv4:", "ipv6:", "dns:"] where peer.hasPrefix(prefix) { return String(peer.dropFirst(prefix.count)) }
        if peer.hasPrefix("unix:") { return "localhost" }
        return peer.isEmpty ? "localhost" : peer
    }
}
