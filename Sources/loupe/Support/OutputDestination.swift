import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import LoupeFormats
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
#if canImport(CDispatch)
import CDispatch  // where `stat` is seen from once no package dependency imports Glibc first, for MemberImportVisibility
#endif
#if canImport(CoreFoundation)
import CoreFoundation  // where swift-corelibs-foundation's `stat` is seen from on Linux, for MemberImportVisibility
#endif

/// Where a command writes a file the user named (`send -o PATH`, `export --har PATH`), decided before anything is
/// sent or read: what is at the path decides how it is written, or whether it is refused.
///
/// A regular file is written beside its place and renamed over it, so it is never left half written; an existing
/// one only with `--force`. A device, a FIFO or a socket (`/dev/null`, `/dev/stdout`, a named pipe) is written
/// *through*, opened where it is: renaming over it would replace the device itself. A path under `/dev/` or
/// `/proc/` is always written through (`/dev/stdout` may point at the shell's own output file). A trace store, or
/// any SQLite database, is never replaced, `--force` or not.
enum OutputDestination: Equatable {
    /// Written beside `path` and renamed over it.
    case replace(String)
    /// Opened at `path` and written in place.
    case through(String)

    /// The SQLite file header: the first 16 bytes of every database file.
    static let sqliteHeader = Data("SQLite format 3\0".utf8)

    /// Decides for `path` (already tilde-expanded), or refuses with one line naming `flag`. `stores` are the
    /// stores the command has open (its own, recorded into or read from), refused with their side files.
    static func check(_ path: String, flag: String, force: Bool, stores: [String] = []) throws(CommandFailure) -> OutputDestination {
        let shown = TerminalText.line(path)
        for store in stores where ([""] + sideSuffixes).contains(where: { sameFile(path, store + $0) }) {
            throw CommandFailure.badInput("refusing to write \(flag) \(shown): it is the trace store \(TerminalText.line(store))")
        }
        if path.hasPrefix("/dev/") || path.hasPrefix("/proc/") { return .through(path) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            var link = stat()
            if lstat(path, &link) == 0 {
                throw CommandFailure.badInput("\(flag) \(shown) is a symbolic link to a file that does not exist")
            }
            try checkFolder(of: path, flag: flag)
            return .replace(path)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw CommandFailure.badInput("\(flag) \(shown) is a directory")
        case S_IFREG:
            let target = resolved(path)
            if isDatabase(target) {
                throw CommandFailure.badInput("refusing to write \(flag) \(shown): it is an SQLite database (a trace store?)")
            }
            if let suffix = sideSuffixes.first(where: { target.hasSuffix($0) }), isDatabase(String(target.dropLast(suffix.count))) {
                throw CommandFailure.badInput("refusing to write \(flag) \(shown): it belongs to the SQLite database beside it")
            }
            guard force else { throw CommandFailure.badInput("\(flag) \(shown) exists; pass --force to replace it") }
            try checkFolder(of: target, flag: flag)
            return .replace(target)
        default:
            // A character or block device, a FIFO, a socket: written through, never renamed over.
            return .through(path)
        }
    }

    /// Opens a path to be written through: a descriptor this process already has (`/dev/stdout`, `/dev/fd/N`,
    /// `/proc/self/fd/N`) is duplicated, so its writes share the shell's offset instead of starting over at byte 0
    /// of a file the shell redirected into; anything else is opened where it is, never created (a missing path
    /// under `/dev/` stays missing), truncated as `curl -o` does (devices and FIFOs ignore that). -1 and `errno`
    /// on failure.
    static func openThrough(_ path: String) -> Int32 {
        if let inherited = inheritedDescriptor(path) { return dup(inherited) }
        return open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
    }

    /// The descriptor `path` names directly, if it is one of this process's own.
    static func inheritedDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count)).flatMap { fcntl($0, F_GETFD) >= 0 ? $0 : nil }
            }
            return nil
        }
    }

    /// Whether `path` is where standard output goes (the same file, device or pipe): output meant for standard
    /// output then goes to standard error, so it does not land in the middle of the body.
    static func isStandardOutput(_ path: String) -> Bool {
        var target = stat(), output = stat()
        guard stat(path, &target) == 0, fstat(STDOUT_FILENO, &output) == 0 else { return false }
        return target.st_dev == output.st_dev && target.st_ino == output.st_ino
    }

    /// SQLite's side files: a store's write-ahead log, its shared memory, its rollback journal.
    static let sideSuffixes = ["-wal", "-shm", "-journal"]

    /// Whether the regular file at `path` starts with the SQLite header.
    static func isDatabase(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: sqliteHeader.count)) == sqliteHeader
    }

    /// The file a path names, symbolic links followed: a replaced link target keeps its link.
    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    private static func checkFolder(of path: String, flag: String) throws(CommandFailure) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var info = stat()
        guard stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw CommandFailure.badInput("\(flag) \(TerminalText.line(path)): no such directory \(TerminalText.line(folder))")
        }
        guard access(folder, W_OK) == 0 else {
            throw CommandFailure.badInput("\(flag) \(TerminalText.line(path)): cannot write in \(TerminalText.line(folder))")
        }
    }

    /// Whether two paths name the same file (after following symbolic links), or the same path when neither exists.
    static func sameFile(_ first: String, _ second: String) -> Bool {
        if resolved(first) == resolved(second) { return true }
        var left = stat(), right = stat()
        guard stat(first, &left) == 0, stat(second, &right) == 0 else { return false }
        return left.st_dev == right.st_dev && left.st_ino == right.st_ino
    }
}

/// `send -o` onto a device, FIFO or socket: the body written where the path is, as it arrives. The bytes cannot be
/// taken back, so the sink never restarts.
final class PassThroughFileSink: ResponseBodySink {
    private let path: String
    private struct State {
        var descriptor: Int32 = -1
        var opened = false
        /// Why the path stopped taking bytes, once it did.
        var failure: String?
    }

    private let state = Mutex(State())

    init(path: String) {
        self.path = path
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { _ = close(state.descriptor) }
        }
    }

    var canRestart: Bool { false }

    /// The command's one line when the path refused a write (exit 2, as for standard output).
    var writeFailure: String? { state.withLock { $0.failure } }

    /// Opens the path where it is (``OutputDestination/openThrough(_:)``).
    func begin(_ head: HTTPResponse, httpVersion: String?) throws {
        try state.withLock { state in
            guard !state.opened else { return }
            state.opened = true
            state.descriptor = OutputDestination.openThrough(path)
            guard state.descriptor >= 0 else { throw Self.failure(&state, path: path) }
        }
    }

    func write(_ chunk: Data) throws {
        try state.withLock { state in
            let descriptor = state.descriptor
            try chunk.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if count < 0 {
                        if errno == EINTR { continue }
                        throw Self.failure(&state, path: path)
                    }
                    offset += count
                }
            }
        }
    }

    func finish(byteCount: Int64) throws {
        try state.withLock { state in
            guard state.descriptor >= 0 else { return }
            let failed = close(state.descriptor) != 0
            state.descriptor = -1
            if failed { throw Self.failure(&state, path: path) }
        }
    }

    /// A response with no body to stream still opens (and so empties) the path, as `curl -o` does.
    func finishIfUnopened() throws {
        guard !state.withLock({ $0.opened }) else { return }
        try begin(HTTPResponse(status: .ok), httpVersion: nil)
        try finish(byteCount: 0)
    }

    private static func failure(_ state: inout State, path: String) -> CommandFailure {
        let line = "cannot write \(TerminalText.line(path)): \(String(cString: strerror(errno)))"
        state.failure = line
        return CommandFailure.badInput(line)
    }
}
