import Foundation
import HTTPTypes
import Synchronization

/// The temporary file a download is written to, beside its destination so that the final move is an atomic rename
/// on one file system. Each attempt rewrites it from the start; it is moved into place only on success and removed
/// otherwise, so an existing file at the destination is never left half written.
///
/// A new file gets mode 0666 less the umask, as `curl -o` creates one; a file it replaces keeps its permission bits.
package final class DownloadFile: ResponseBodySink {
    package let destination: URL
    package let temporary: URL
    private struct State {
        /// The open temporary file of the attempt under way.
        var descriptor: Int32 = -1
        /// Bytes of the last attempt that wrote the whole body, or nil when no attempt has.
        var completed: Int64?
    }

    private let state = Mutex(State())

    package init(destination: URL) {
        self.destination = destination
        self.temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).loupe-\(UUID().uuidString).part")
    }

    /// Each attempt starts the file again.
    package var canRestart: Bool { true }

    /// Starts an attempt: an empty temporary file, opened for writing.
    package func begin(_ head: HTTPResponse, httpVersion: String?) throws {
        try state.withLock { state in
            state.completed = nil
            if state.descriptor >= 0 { close(state.descriptor) }
            state.descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
            guard state.descriptor >= 0 else {
                throw DownloadError(.cannotWrite, temporary, reason: String(cString: strerror(errno)))
            }
        }
    }

    package func write(_ chunk: Data) throws {
        let descriptor = state.withLock { $0.descriptor }
        try chunk.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw DownloadError(.cannotWrite, temporary, reason: String(cString: strerror(errno)))
                }
                offset += count
            }
        }
    }

    /// The attempt wrote the whole body, `byteCount` long.
    package func finish(byteCount: Int64) throws {
        try state.withLock { state in
            let failed = state.descriptor >= 0 && close(state.descriptor) != 0
            state.descriptor = -1
            if failed { throw DownloadError(.cannotWrite, temporary, reason: String(cString: strerror(errno))) }
            state.completed = byteCount
        }
    }

    /// Moves the result into place, replacing any file there, and returns its size. When the transport did not
    /// write it (a middleware answered from memory, or the transport cannot stream), `body` is written instead.
    package func install(body: Data) throws -> Int64 {
        if state.withLock({ $0.completed }) == nil || !body.isEmpty {
            try begin(HTTPResponse(status: .ok), httpVersion: nil)
            try write(body)
            try finish(byteCount: Int64(body.count))
        }
        var existing = stat()
        if stat(destination.path, &existing) == 0 { _ = chmod(temporary.path, existing.st_mode & 0o7777) }
        guard rename(temporary.path, destination.path) == 0 else {
            throw DownloadError(.cannotMove, destination, reason: String(cString: strerror(errno)))
        }
        return state.withLock { $0.completed } ?? 0
    }

    /// Deletes the temporary file if it is still there (failure or cancellation).
    package func discard() {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
            state.descriptor = -1
        }
        try? FileManager.default.removeItem(at: temporary)
    }
}

/// A download could not write or move its file.
public struct DownloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What failed.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        let name: String
        public var description: String { name }
        /// Creating or writing the temporary file failed.
        public static let cannotWrite = Kind(name: "cannot write")
        /// Moving the finished file into place failed.
        public static let cannotMove = Kind(name: "cannot move into place")
    }

    /// What failed.
    public var kind: Kind
    /// The file concerned.
    public var fileURL: URL
    /// The system's reason.
    public var reason: String

    init(_ kind: Kind, _ fileURL: URL, reason: String) {
        self.kind = kind
        self.fileURL = fileURL
        self.reason = reason
    }

    public var description: String { "\(kind) \(fileURL.path): \(reason)" }
}

/// `write(2)`, named apart from ``DownloadFile/write(_:)``.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
