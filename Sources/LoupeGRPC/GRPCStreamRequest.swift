/// When the call the current task runs asked its transport for a stream (``LoupeGRPCTransport``): grpc-swift has
/// just written the deadline's remainder as `grpc-timeout`, so the deadline is that instant plus the timeout.
enum GRPCStreamRequest {
    @TaskLocal static var askedAt: ContinuousClock.Instant?

    /// How long ago the stream was asked for, or zero when no ``LoupeGRPCTransport`` said.
    static func waited() -> Duration {
        guard let askedAt else { return .zero }
        return max(.zero, askedAt.duration(to: .now))
    }
}
