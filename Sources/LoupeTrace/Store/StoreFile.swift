import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system chores around the SQLite file: what is at the path, its header, folders, and creating a store.
///
/// Loupe only changes files it owns. Anything at the path is judged first by `stat` (so a named pipe, socket,
/// device or folder is refused before any `open`, which could block or touch a device), then by its header, read
/// with a plain read-only descriptor; only then may SQLite open it. A new store is built in a hidden file beside
/// the path, mode 0600, and linked into place complete, so no other process ever sees a half-made store (or an
/// empty file, which is therefore never taken for one). Loupe never changes the mode of a file it did not create.
enum StoreFile {
    static let ownerOnly: mode_t = 0o600

    /// A regular file found at a store's path.
    struct Found {
        var size: Int
        var mode: mode_t
        /// Why this process should not write it, or `nil` when it may. Root may write a 0400 file, but a file made
        /// read-only says "do not write", and Loupe obeys.
        var notWritable: String?
        var isWritable: Bool { notWritable == nil }
    }

    /// What is at `path`: `nil` when nothing is; throws ``TraceStoreError/Code/notAFile`` for anything but a
    /// regular file (symbolic links are followed).
    static func inspect(_ path: String) throws -> Found? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            var link = stat()
            if code == ENOENT, lstat(path, &link) == 0 {
                throw TraceStoreError.notAFile(path, "a symbolic link to nothing")
            }
            if code == ENOENT { return nil }
            if code == ENOTDIR { throw TraceStoreError.notAFile(path, "a path through a file that is not a folder") }
            throw TraceStoreError.cannotOpen(path, String(cString: strerror(code)))
        }
        if let kind = kindName(info.st_mode) { throw TraceStoreError.notAFile(path, kind) }
        let mode = info.st_mode & 0o7777
        var notWritable: String?
        if mode & 0o222 == 0 {
            notWritable = "its mode is \(String(mode, radix: 8))"
        } else if access(path, W_OK) != 0 {
            notWritable = errno == EROFS ? "it is on a read-only file system" : "this user may not write it"
        }
        return Found(size: Int(info.st_size), mode: mode, notWritable: notWritable)
    }

    /// How to name a file that is not a regular file (`nil` for a regular one).
    static func kindName(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a named pipe (FIFO)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "not a regular file"
        }
    }

    /// Reads the SQLite header of the regular file at `path` and the file's size; throws when the file is empty,
    /// is not an SQLite database, or has a damaged header. Opens without blocking and checks the descriptor is
    /// still a regular file (the path may have been swapped since ``inspect(_:)``).
    static func header(_ path: String) throws -> (header: SQLiteFileHeader, fileSize: Int) {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TraceStoreError.cannotOpen(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw TraceStoreError.cannotOpen(path, String(cString: strerror(errno))) }
        if let kind = kindName(info.st_mode) { throw TraceStoreError.notAFile(path, kind) }
        var bytes = [UInt8](repeating: 0, count: SQLiteFileHeader.size)
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        if filled == 0 { throw TraceStoreError.emptyFile(path) }
        let prefix = Array(bytes[0..<filled])
        guard SQLiteFileHeader.hasMagic(prefix) else { throw TraceStoreError.notADatabase(path) }
        guard let header = SQLiteFileHeader(prefix) else { throw TraceStoreError.damaged(path, "its header is damaged") }
        return (header, Int(info.st_size))
    }

    /// Whether `path-wal` exists: while it does, a connection may be open or a crash left commits in it.
    static func walExists(_ path: String) -> Bool {
        access(path + "-wal", F_OK) == 0
    }

    /// Makes the missing folders of `path`'s folder, each mode 0700; existing folders are left as they are.
    static func makeFolders(for path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        var missing: [String] = []
        var current = folder
        while !current.isEmpty, current != "/", access(current, F_OK) != 0 {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() where mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw TraceStoreError.cannotOpen(path, "cannot create the folder \(directory) (\(String(cString: strerror(errno))))")
        }
    }

    /// Makes the bytes of the file at `file` durable before it gets the store's name (`path`, for the error).
    private static func syncContents(of file: String, path: String) throws {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw TraceStoreError.cannotOpen(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw TraceStoreError.cannotOpen(path, String(cString: strerror(errno))) }
    }

    /// Builds a new store with `build` in a hidden file beside `path` and links it into place, unless something
    /// appeared at `path` meanwhile. Returns whether this call created the store.
    static func createAtomically(_ path: String, build: (String) throws -> Void) throws -> Bool {
        try makeFolders(for: path)
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).creating").path
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW, ownerOnly)
        guard descriptor >= 0 else { throw TraceStoreError.cannotOpen(path, String(cString: strerror(errno))) }
        // Our own new file: make it owner-only whatever the umask. SQLite gives `-wal`/`-shm` the same mode.
        _ = fchmod(descriptor, ownerOnly)
        close(descriptor)
        defer {
            for file in [temporary, temporary + "-wal", temporary + "-shm", temporary + "-journal"] { unlink(file) }
        }
        try build(temporary)
        try syncContents(of: temporary, path: path)
        if link(temporary, path) == 0 { return true }
        let code = errno
        if code == EEXIST { return false }
        // Some file systems have no hard links: fall back to a rename, which replaces nothing unless another
        // process creates the store in the instant between the check and the rename.
        guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EXDEV || code == EMLINK else {
            throw TraceStoreError.cannotOpen(path, String(cString: strerror(code)))
        }
        guard access(path, F_OK) != 0 else { return false }
        guard rename(temporary, path) == 0 else { throw TraceStoreError.cannotOpen(path, String(cString: strerror(errno))) }
        return true
    }
}
