import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system chores around the SQLite file: folders, permissions, and telling a database from anything else.
///
/// Traces hold URLs, headers and bodies, so the file and its `-wal`/`-shm` companions are readable by their owner
/// only. The file is created with mode 0600 *before* SQLite opens it: SQLite gives the companions the main file's
/// mode, so nothing is ever world-readable, whatever the umask.
enum StoreFile {
    /// The first 16 bytes of every SQLite 3 database.
    static let sqliteHeader = Data("SQLite format 3\u{0}".utf8)
    static let ownerOnly: mode_t = 0o600

    /// Makes the folders and an owner-only file for a store that will be written; refuses files that are not
    /// SQLite databases without touching them.
    static func prepareForWriting(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw TraceStoreError.cannotOpen(path, "cannot create the folder \(folder) (\(error.localizedDescription))")
            }
        }
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, ownerOnly)
        guard descriptor >= 0 else { throw TraceStoreError.cannotOpen(path, String(cString: strerror(errno))) }
        close(descriptor)
        try checkHeader(path, allowEmpty: true)
        restrictPermissions(path)
    }

    /// Checks a store that will only be read: it must exist and look like an SQLite database.
    static func prepareForReading(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TraceStoreError.notFound(path)
        }
        guard !isDirectory.boolValue else { throw TraceStoreError.cannotOpen(path, "it is a folder") }
        try checkHeader(path, allowEmpty: true)
    }

    /// Sets the database and any `-wal`/`-shm` file to mode 0600 (those may predate this version of Loupe).
    static func restrictPermissions(_ path: String) {
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            // Best effort: a file owned by someone else keeps its mode, and SQLite reports any real problem.
            _ = chmod(file, ownerOnly)
        }
    }

    /// Throws `notADatabase` unless the file starts with the SQLite header (an empty file is a new database).
    private static func checkHeader(_ path: String, allowEmpty: Bool) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw TraceStoreError.cannotOpen(path, "the file cannot be read")
        }
        defer { try? handle.close() }
        let prefix = (try? handle.read(upToCount: sqliteHeader.count)) ?? Data()
        if prefix.isEmpty && allowEmpty { return }
        guard prefix == sqliteHeader else { throw TraceStoreError.notADatabase(path) }
    }
}
