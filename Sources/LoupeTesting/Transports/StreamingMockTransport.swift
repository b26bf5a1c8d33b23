import Foundation
import HTTPTypes
import Loupe
import Synchronization

/// A ``StreamingClientTransport`` answering with a closure, for testing downloads without a server.
///
/// ```swift
/// let transport = StreamingMockTransport { _, _, _ in
///     StreamedResponse(head: HTTPResponse(status: .ok), body: StreamingMockTransport.patternBody(byteCount: 5 << 20))
/// }
/// ```
public struct StreamingMockTransport: StreamingClientTransport {
    /// Answers one request with a streamed response (head now, body chunks as they come).
    public typealias Handler = @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> StreamedResponse

    private let handler: Handler

    /// Answers every request with `handler`.
    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    public func stream(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> StreamedResponse {
        context.attempt?.markRequestSent()
        let response = try await handler(request, body, context)
        context.attempt?.markFirstByte()
        return response
    }

    public func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        try await stream(request, body: body, context: context).collect()
    }

    /// The byte at `offset` of a ``patternBody(byteCount:chunkSize:)``: lets a test check every byte it received.
    public static func patternByte(at offset: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: offset % 251)
    }

    /// The first `byteCount` bytes of the pattern, in memory: what a test compares a downloaded file with.
    public static func patternData(byteCount: Int) async throws -> Data {
        try await StreamedResponse(head: HTTPResponse(status: .ok), body: patternBody(byteCount: byteCount)).collect().body
    }

    /// `byteCount` pattern bytes in chunks of `chunkSize`, each made only when the reader asks for it, so a test
    /// body of any size costs one chunk of memory.
    public static func patternBody(byteCount: Int, chunkSize: Int = 64 * 1024) -> AsyncThrowingStream<Data, any Error> {
        let cursor = PatternCursor(byteCount: byteCount, chunkSize: chunkSize)
        return AsyncThrowingStream(unfolding: { cursor.next() })
    }
}

/// Where a pattern body has got to.
private final class PatternCursor: Sendable {
    private let byteCount: Int
    private let chunkSize: Int
    /// The 251-byte cycle repeated past one chunk, so any chunk is one slice of it.
    private let cycle: Data
    private let offset = Mutex(0)

    init(byteCount: Int, chunkSize: Int) {
        self.byteCount = byteCount
        self.chunkSize = chunkSize
        self.cycle = Data((0..<(chunkSize + 251)).map(StreamingMockTransport.patternByte(at:)))
    }

    func next() -> Data? {
        offset.withLock { offset in
            guard offset < byteCount else { return nil }
            let count = min(chunkSize, byteCount - offset)
            let start = offset % 251
            offset += count
            return cycle.subdata(in: start..<start + count)
        }
    }
}
