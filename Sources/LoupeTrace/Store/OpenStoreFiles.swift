import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The store files this process has open in SQLite, by device and inode.
///
/// POSIX record locks belong to the process, not the descriptor: closing *any* descriptor of a file drops every
/// lock the process holds on it (sqlite.org/howtocorrupt.html, 2.2). SQLite keeps its own descriptors out of that
/// trap, but a plain `open`/`close` of the file (``StoreFile/header(_:)``) while a connection is open silently
/// drops that connection's shared lock. Another process closing its connection then believes it is the last one,
/// checkpoints and deletes the `-wal` file, and the commits this process makes next go to the deleted file and are
/// lost. That is how the TUI lost its own replays: the viewer was open when the replayer's writer opened.
/// So the header is only read with a plain descriptor while no store in this process has the file open.
enum OpenStoreFiles {
    struct FileID: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    private static let counts = Mutex<[FileID: Int]>([:])

    /// The file at `path`, or `nil` when `stat` fails.
    static func id(of path: String) -> FileID? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Notes that a store in this process has the file at `path` open; returns what to pass to ``release(_:)``.
    static func retain(_ path: String) -> FileID? {
        guard let id = id(of: path) else { return nil }
        counts.withLock { $0[id, default: 0] += 1 }
        return id
    }

    static func release(_ id: FileID?) {
        guard let id else { return }
        counts.withLock { counts in
            let left = (counts[id] ?? 1) - 1
            counts[id] = left > 0 ? left : nil
        }
    }

    /// Whether a store in this process has the file at `path` open.
    static func isOpen(_ path: String) -> Bool {
        guard let id = id(of: path) else { return false }
        return counts.withLock { $0[id] != nil }
    }
}
