import Foundation
import HTTPTypes

/// One misbehaviour of the wire, in the words every fault injector shares: `LoupeTesting`'s
/// `FaultInjectingTransport` and `ScriptedTransport` in tests, and rules acting on a live app (`LoupeRules`).
///
/// A fault is performed by ``perform(_:body:context:clock:send:)`` so that it looks to the middleware above it
/// exactly like the real failure: the same ``TransportError`` kinds a real transport throws, the attempt's timeout
/// honoured, the request marked sent when a real one would have been.
public enum TransportFault: Sendable, Hashable, CustomStringConvertible {
    /// The call goes through after this extra delay (or times out if the attempt's timeout is shorter).
    case latency(Duration)
    /// The call goes through; its response comes back after this extra delay (bounded by the timeout likewise).
    case responseDelay(Duration)
    /// Fails with ``TransportError/Kind/connectionReset``; nothing reaches the server.
    case connectionReset
    /// Fails with ``TransportError/Kind/connectFailed``.
    case connectFailed
    /// Waits for the attempt's timeout (at once when it has none), then fails with ``TransportError/Kind/timedOut``.
    case timeout
    /// Answers with this status and an empty body without reaching the server, as an overloaded proxy would.
    case status(Int)
    /// The call goes through, but the response body breaks after this many bytes: a
    /// ``TransportError/Kind/connectionReset`` carrying the head and the bytes so far as its partial response.
    case cutBody(after: Int)

    public var description: String {
        switch self {
        case .latency(let delay): "delay \(Quantity.duration(delay)) before sending"
        case .responseDelay(let delay): "delay \(Quantity.duration(delay)) before returning"
        case .connectionReset: "connection reset"
        case .connectFailed: "connect failure"
        case .timeout: "timeout"
        case .status(let code): "status \(code)"
        case .cutBody(let bytes): "body cut after \(bytes) bytes"
        }
    }

    /// Whether the fault lets the request reach the wrapped transport (`send`).
    public var reachesServer: Bool {
        switch self {
        case .latency, .responseDelay, .cutBody: true
        case .connectionReset, .connectFailed, .timeout, .status: false
        }
    }

    /// Performs the fault around `send` (the real transport call), waiting on `clock`.
    public func perform(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext, clock: any Clock<Duration>,
        send: @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        switch self {
        case .latency(let delay):
            try await Self.wait(delay, clock: clock, context: context)
            return try await send(request, body, context)
        case .responseDelay(let delay):
            let response = try await send(request, body, context)
            try await Self.wait(delay, clock: clock, context: context)
            return response
        case .connectionReset:
            context.attempt?.markRequestSent()
            throw TransportError(.connectionReset, "injected connection reset")
        case .connectFailed:
            throw TransportError(.connectFailed, "injected connect failure")
        case .timeout:
            context.attempt?.markRequestSent()
            if let timeout = context.timeout, timeout > .zero { try await clock.sleep(for: timeout) }
            throw TransportError(.timedOut, "injected timeout")
        case .status(let code):
            context.attempt?.markRequestSent()
            context.attempt?.markFirstByte()
            return RawResponse(status: HTTPResponse.Status(code: code), headerFields: [.contentLength: "0"], body: Data())
        case .cutBody(let bytes):
            var response = try await send(request, body, context)
            guard response.body.count > bytes else { return response }
            response.body = response.body.prefix(max(0, bytes))
            throw TransportError(
                .connectionReset, "injected: connection closed after \(bytes) bytes of the body", partialResponse: response)
        }
    }

    /// Sleeps `duration` on `clock` the way a real transport waits: never past the attempt's timeout, after which
    /// it throws ``TransportError/Kind/timedOut``.
    public static func wait(_ duration: Duration, clock: any Clock<Duration>, context: RequestContext) async throws {
        if let timeout = context.timeout, timeout < duration {
            try await clock.sleep(for: timeout)
            throw TransportError(.timedOut, "no answer within the attempt timeout of \(timeout)")
        }
        if duration > .zero { try await clock.sleep(for: duration) }
    }
}
