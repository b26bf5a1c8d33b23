import GRPCCore
@testable import LoupeGRPC

/// A transport that takes `delay` to open each stream before handing it to the wrapped one: a connection that is
/// slow to come up, or a busy machine, between grpc-swift writing a call's deadline and its interceptors running.
struct SlowStreamTransport<Base: ClientTransport>: ClientTransport {
    typealias Bytes = Base.Bytes

    let base: Base
    let delay: Duration
    /// Hides when the stream was asked for from the interceptor, as if the client had no ``LoupeGRPCTransport``.
    var hidesTheRequest = false

    var retryThrottle: RetryThrottle? { base.retryThrottle }

    func connect() async throws {
        try await base.connect()
    }

    func beginGracefulShutdown() {
        base.beginGracefulShutdown()
    }

    func config(forMethod descriptor: MethodDescriptor) -> MethodConfig? {
        base.config(forMethod: descriptor)
    }

    func withStream<T: Sendable>(
        descriptor: MethodDescriptor,
        options: CallOptions,
        _ closure: (_ stream: RPCStream<Inbound, Outbound>, _ context: ClientContext) async throws -> T
    ) async throws -> T {
        // The wait stands for a real one (a connection coming up), so it is real time: grpc-swift's deadline timer
        // runs on the continuous clock and cannot be given another.
        if delay > .zero { try await Task.sleep(for: delay) }
        guard hidesTheRequest else { return try await base.withStream(descriptor: descriptor, options: options, closure) }
        return try await GRPCStreamRequest.$askedAt.withValue(nil) {
            try await base.withStream(descriptor: descriptor, options: options, closure)
        }
    }
}
