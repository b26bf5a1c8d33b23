import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(CoreFoundation)
import CoreFoundation  // where swift-corelibs-foundation's `stat` is seen from on Linux, for MemberImportVisibility
#endif
#if canImport(CDispatch)
// With grpc-swift's transport in the executable (gRPC replay), `stat` is seen from CDispatch too.
import CDispatch
#endif

/// Files named on the command line (`import FILE.har`, `--data @FILE`, `--pin-cert FILE`) are read only when they
/// are regular files: a directory, FIFO, socket or device (`/dev/zero`, `/dev/stdin` on a terminal) is refused at
/// once with one line, instead of hanging on a read that never ends or failing with a decoder's riddle.
enum InputFile {
    /// `path` when it names a regular file (after following symbolic links); else bad input naming what it is.
    @discardableResult
    static func regular(_ path: String, role: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CommandFailure.badInput("cannot read \(role) \(path): \(String(cString: strerror(errno)))")
        }
        try requireRegular(info, path: path, role: role)
        return path
    }

    /// The whole contents of the regular file at `path`.
    ///
    /// The file is opened without blocking and checked on the open descriptor, so a FIFO swapped in after a check
    /// cannot stall the read either.
    static func contents(_ path: String, role: String) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandFailure.badInput("cannot read \(role) \(path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw CommandFailure.badInput("cannot read \(role) \(path): \(String(cString: strerror(errno)))")
        }
        try requireRegular(info, path: path, role: role)
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw CommandFailure.badInput("cannot read \(role) \(path): \((error as NSError).localizedDescription)")
        }
    }

    private static func requireRegular(_ info: stat, path: String, role: String) throws {
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        default: kind = "a special file"
        }
        throw CommandFailure.badInput("\(role) \(path) is \(kind), not a regular file")
    }
}
