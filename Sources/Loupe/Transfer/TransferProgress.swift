import Foundation

/// How far an upload or download has got.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes handed to the transport (upload) or written to the file (download) so far in this pass.
    public var completedBytes: Int64
    /// The size, when known (`Content-Length`, or the body's length).
    public var totalBytes: Int64?

    /// Progress of `completedBytes` out of `totalBytes`.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// Between 0 and 1 when the total is known (1 for an empty body).
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        return totalBytes == 0 ? 1 : Double(completedBytes) / Double(totalBytes)
    }

    public var description: String {
        totalBytes.map { "\(completedBytes)/\($0) bytes" } ?? "\(completedBytes) bytes"
    }
}

/// Feeds a progress stream and ends it when finished or when nothing refers to it any more, so a listener never
/// waits forever.
final class ProgressChannel: Sendable {
    private let continuation: AsyncStream<TransferProgress>.Continuation

    init(_ continuation: AsyncStream<TransferProgress>.Continuation) {
        self.continuation = continuation
    }

    /// A channel and the stream it feeds.
    static func make(
        bufferingPolicy: AsyncStream<TransferProgress>.Continuation.BufferingPolicy
    ) -> (ProgressChannel, AsyncStream<TransferProgress>) {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: bufferingPolicy)
        return (ProgressChannel(continuation), stream)
    }

    func report(_ completed: Int64, of total: Int64?) {
        continuation.yield(TransferProgress(completedBytes: completed, totalBytes: total))
    }

    func finish() {
        continuation.finish()
    }

    deinit {
        continuation.finish()
    }
}
