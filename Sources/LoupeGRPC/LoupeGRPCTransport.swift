import GRPCCore

/// Wraps the client's transport so ``LoupeGRPCInterceptor`` reads each call's deadline where grpc-swift fixes it.
///
/// ```swift
/// let client = GRPCClient(transport: LoupeGRPCTransport(wrapping: transport),
///                         interceptors: [LoupeGRPCInterceptor(recorder: inspector)])
/// ```
/// grpc-swift turns a call's timeout into a deadline and writes what is left of it as `grpc-timeout` just before it
/// asks the transport for a stream; its interceptors run only once the stream is open, which on a new or busy
/// connection is much later. An expired deadline reaches interceptors as a cancellation, so the interceptor tells
/// it from the app's own cancellation by the clock, and needs that clock to start where grpc-swift's did. This
/// transport notes when the stream was asked for; everything else passes through to `base` unchanged. Without it
/// the interceptor starts the deadline when it runs, and a call that waited long for its stream and then ran out of
/// time is recorded as `CANCELLED`.
public struct LoupeGRPCTransport<Base: ClientTransport>: ClientTransport {
    public typealias Bytes = Base.Bytes

    /// The transport that carries the calls.
    public let base: Base

    /// Wraps `base`.
    public init(wrapping base: Base) {
        self.base = base
    }

    /// The wrapped transport's throttle.
    public var retryThrottle: RetryThrottle? { base.retryThrottle }

    /// Connects the wrapped transport.
    public func connect() async throws {
        try await base.connect()
    }

    /// Shuts the wrapped transport down.
    public func beginGracefulShutdown() {
        base.beginGracefulShutdown()
    }

    /// The wrapped transport's configuration for `descriptor`.
    public func config(forMethod descriptor: MethodDescriptor) -> MethodConfig? {
        base.config(forMethod: descriptor)
    }

    /// Opens a stream on the wrapped transport, noting when it was asked for.
    public func withStream<T: Sendable>(
        descriptor: MethodDescriptor,
        options: CallOptions,
        _ closure: (_ stream: RPCStream<Inbound, Outbound>, _ context: ClientContext) async throws -> T
    ) async throws -> T {
        try await GRPCStreamRequest.$askedAt.withValue(ContinuousClock.now) {
            try await base.withStream(descriptor: descriptor, options: options, closure)
        }
    }
}
