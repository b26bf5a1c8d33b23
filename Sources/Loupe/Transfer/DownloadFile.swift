import Foundation
import Synchronization

/// The temporary file a download is written to, beside its destination so that the final move is an atomic rename
/// on one file system. Each attempt rewrites it from the start; it is moved into place only on success and removed
/// otherwise.
final class DownloadFile: Sendable {
    let destination: URL
    let temporary: URL
    /// Bytes of the last attempt that wrote the whole body, or nil when no attempt has.
    private let completed = Mutex<Int64?>(nil)

    init(destination: URL) {
        self.destination = destination
        self.temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).loupe-\(UUID().uuidString).part")
    }

    /// Starts an attempt: an empty temporary file, opened for writing.
    func beginAttempt() throws -> FileHandle {
        completed.withLock { $0 = nil }
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw DownloadError(.cannotWrite, temporary, reason: "cannot create the file")
            }
            return try FileHandle(forWritingTo: temporary)
        } catch let error as DownloadError {
            throw error
        } catch {
            throw DownloadError(.cannotWrite, temporary, reason: String(describing: error))
        }
    }

    /// The attempt wrote the whole body, `bytes` long.
    func attemptCompleted(bytes: Int64) {
        completed.withLock { $0 = bytes }
    }

    /// Moves the result into place, replacing any file there, and returns its size. When the transport did not
    /// write it (a middleware answered from memory, or the transport cannot stream), `body` is written instead.
    func install(body: Data) throws -> Int64 {
        var bytes = completed.withLock { $0 }
        if bytes == nil || !body.isEmpty {
            do {
                try body.write(to: temporary)
            } catch {
                throw DownloadError(.cannotWrite, temporary, reason: String(describing: error))
            }
            bytes = Int64(body.count)
        }
        guard rename(temporary.path, destination.path) == 0 else {
            throw DownloadError(.cannotMove, destination, reason: String(cString: strerror(errno)))
        }
        return bytes ?? 0
    }

    /// Deletes the temporary file if it is still there (failure or cancellation).
    func discard() {
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
