import Foundation

/// The bytes of a request body, either in memory or produced on demand as a stream.
///
/// In-memory bodies can be sent any number of times, so retry middleware may resend them. A stream body is
/// replayable only when its factory can start over (a file on disk can; a socket cannot), which is what
/// ``isReplayable`` reports.
public struct RequestBody: Sendable {
    enum Storage: Sendable {
        case data(Data)
        case stream(@Sendable () throws -> AsyncThrowingStream<Data, any Error>)
    }

    let storage: Storage
    /// The length in bytes when known ahead of sending.
    public let length: Int64?
    /// Whether the body can be produced again for another attempt.
    public let isReplayable: Bool

    /// A body held in memory.
    public static func data(_ data: Data) -> RequestBody {
        RequestBody(storage: .data(data), length: Int64(data.count), isReplayable: true)
    }

    /// A UTF-8 text body.
    public static func string(_ string: String) -> RequestBody {
        .data(Data(string.utf8))
    }

    /// A body produced in chunks; `replayable` says whether `makeStream` may be called more than once.
    public static func stream(
        length: Int64?,
        replayable: Bool,
        _ makeStream: @escaping @Sendable () throws -> AsyncThrowingStream<Data, any Error>
    ) -> RequestBody {
        RequestBody(storage: .stream(makeStream), length: length, isReplayable: replayable)
    }

    /// The bytes when the body is in memory; `nil` for streams, which are never loaded just to be inspected.
    public var bufferedData: Data? {
        if case .data(let data) = storage { return data }
        return nil
    }

    /// The body as a stream of chunks, whatever its storage.
    public func makeStream() throws -> AsyncThrowingStream<Data, any Error> {
        switch storage {
        case .data(let data):
            return AsyncThrowingStream { continuation in
                if !data.isEmpty { continuation.yield(data) }
                continuation.finish()
            }
        case .stream(let make):
            return try make()
        }
    }

    /// Collects the whole body in memory (for transports that need contiguous bytes).
    public func collect() async throws -> Data {
        if let data = bufferedData { return data }
        var result = Data()
        for try await chunk in try makeStream() { result.append(chunk) }
        return result
    }
}
