import Foundation
import Loupe
import NIOCore
import NIOFoundationCompat

/// Request body chunks as ByteBuffers; marks the attempt's request-sent time once the last chunk has been taken.
struct SentMarkingSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let base: AsyncThrowingStream<Data, any Error>
    let attempt: AttemptHandle?

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Data, any Error>.AsyncIterator
        let attempt: AttemptHandle?

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else {
                attempt?.markRequestSent()
                return nil
            }
            return ByteBuffer(data: chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), attempt: attempt)
    }
}
