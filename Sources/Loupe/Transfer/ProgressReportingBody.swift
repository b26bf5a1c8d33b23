import Foundation

/// Wraps a ``RequestBody`` so that every chunk the transport takes is reported as upload progress.
///
/// The transport pulls chunks one at a time (at most `chunkSize` bytes each), so progress follows what has really
/// been handed to the connection, not what has been read ahead. Each pass over the body (a retry replays it)
/// starts again at 0. The progress stream ends on ``finish()`` or when the body is released.
package struct ProgressReportingBody: Sendable {
    /// The body to send in place of the original.
    package let body: RequestBody
    /// Bytes handed to the transport so far, out of the body's length.
    package let progress: AsyncStream<TransferProgress>
    private let channel: ProgressChannel

    /// Wraps `base`, re-chunking it to at most `chunkSize` bytes; `bufferingPolicy` bounds unread progress values.
    package init(
        _ base: RequestBody,
        chunkSize: Int = 64 * 1024,
        bufferingPolicy: AsyncStream<TransferProgress>.Continuation.BufferingPolicy = .bufferingNewest(64)
    ) {
        precondition(chunkSize > 0, "chunkSize must be positive")
        let (channel, progress) = ProgressChannel.make(bufferingPolicy: bufferingPolicy)
        let total = base.length
        self.channel = channel
        self.progress = progress
        self.body = .stream(length: total, replayable: base.isReplayable) {
            let source = ChunkSource(try base.makeStream(), chunkSize: chunkSize)
            channel.report(0, of: total)
            return AsyncThrowingStream(unfolding: {
                guard let chunk = try await source.next() else { return nil }
                channel.report(source.delivered, of: total)
                return chunk
            })
        }
    }

    /// Ends the progress stream (the request is over).
    package func finish() {
        channel.finish()
    }
}

/// Re-chunks a stream to at most `chunkSize` bytes, pulling from it only when asked.
final class ChunkSource: @unchecked Sendable {
    // Unchecked: `next()` is only called by the enclosing unfolding stream, which its single consumer drives one
    // call at a time (an AsyncIterator is never shared), so these properties are never touched concurrently.
    private var iterator: AsyncThrowingStream<Data, any Error>.AsyncIterator
    private var pending = Data()
    private var offset = 0
    private let chunkSize: Int
    private(set) var delivered: Int64 = 0

    init(_ stream: AsyncThrowingStream<Data, any Error>, chunkSize: Int) {
        self.iterator = stream.makeAsyncIterator()
        self.chunkSize = chunkSize
    }

    func next() async throws -> Data? {
        while offset == pending.count {
            guard let chunk = try await iterator.next() else { return nil }
            pending = chunk
            offset = 0
        }
        // Offsets rather than dropping the front, so a large in-memory body is not copied once per chunk.
        let start = pending.startIndex + offset
        let chunk = pending.subdata(in: start..<min(start + chunkSize, pending.endIndex))
        offset += chunk.count
        delivered += Int64(chunk.count)
        return chunk
    }
}
