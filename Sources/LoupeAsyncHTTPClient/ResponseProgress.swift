import Foundation
import HTTPTypes
import Loupe
import NIOCore
import Synchronization

/// What has arrived of one response so far: read by the attempt as it collects the body, and by the failure path
/// when the attempt ends early (connection closed, timed out, too large), so the bytes that came are kept.
final class ResponseProgress: Sendable {
    private struct State {
        var head: HTTPResponse?
        var version: String?
        var body = Data()
    }

    private let state = Mutex(State())

    /// The head arrived.
    func begin(_ head: HTTPResponse, version: String?) {
        state.withLock {
            $0.head = head
            $0.version = version
        }
    }

    /// Adds a chunk unless the body would pass `limit` bytes; returns whether it was added.
    func append(_ chunk: ByteBuffer, limit: Int) -> Bool {
        state.withLock { state in
            guard state.body.count + chunk.readableBytes <= limit else { return false }
            chunk.withUnsafeReadableBytes { state.body.append(contentsOf: $0) }
            return true
        }
    }

    /// The response so far; `nil` before the head arrived.
    var response: RawResponse? {
        state.withLock { state in
            state.head.map { RawResponse(head: $0, body: state.body, httpVersion: state.version) }
        }
    }
}
