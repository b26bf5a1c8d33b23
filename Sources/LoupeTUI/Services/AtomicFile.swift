import Foundation

/// Writes a file so that no reader ever sees half of it: the bytes go to a temporary file (mode 0600) in the
/// destination's folder, which then takes the destination's name in one step.
///
/// With `replacing: false` an existing file is never touched: the temporary file is hard-linked to the name
/// (`link(2)` fails when the name exists), or, where the file system has no hard links, the name is first
/// claimed with `O_CREAT | O_EXCL` and the finished file renamed over that empty claim.
package enum AtomicFile {
    /// Why a write failed, as one line.
    package enum Failure: Error, Equatable {
        /// `replacing` was false and something is already at the path.
        case exists(path: String)
        /// A system call failed; `reason` is its `strerror` text.
        case system(path: String, reason: String)
    }

    /// The open temporary file ``write(to:replacing:_:)`` hands to its body; valid only while the body runs.
    package final class Output {
        fileprivate let descriptor: Int32
        fileprivate let path: String
        /// Bytes written so far.
        package private(set) var count = 0

        fileprivate init(descriptor: Int32, path: String) {
            self.descriptor = descriptor
            self.path = path
        }

        /// Appends `data`.
        package func write(_ data: Data) throws(Failure) {
            let failure: Int32? = data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return nil
            }
            if let failure { throw .system(path: path, reason: String(cString: strerror(failure))) }
            count += data.count
        }
    }

    /// Runs `body` on a fresh temporary file beside `path`, then moves the result to `path`. When `body` or the
    /// move fails, the temporary file is removed and nothing at `path` has changed.
    package static func write<T>(to path: String, replacing: Bool, _ body: (Output) throws -> T) throws -> T {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = (folder.isEmpty ? "." : folder) + "/.\(name).\(UUID().uuidString.prefix(8)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure.system(path: path, reason: String(cString: strerror(errno))) }
        let output = Output(descriptor: descriptor, path: path)
        var isOpen = true
        do {
            let result = try body(output)
            isOpen = false
            // close(2) reports write-back errors (NFS, full disks) that write(2) did not.
            guard close(descriptor) == 0 else { throw Failure.system(path: path, reason: String(cString: strerror(errno))) }
            try move(temporary, to: path, replacing: replacing)
            return result
        } catch {
            if isOpen { close(descriptor) }
            unlink(temporary)
            throw error
        }
    }

    private static func move(_ temporary: String, to path: String, replacing: Bool) throws(Failure) {
        if replacing {
            guard rename(temporary, path) == 0 else { throw .system(path: path, reason: String(cString: strerror(errno))) }
            return
        }
        if link(temporary, path) == 0 {
            unlink(temporary)
            return
        }
        let linkError = errno
        if linkError == EEXIST { throw .exists(path: path) }
        // No hard links here (some FUSE and FAT file systems): claim the name, then rename over the claim.
        guard [EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS, EMLINK].contains(linkError) else {
            throw .system(path: path, reason: String(cString: strerror(linkError)))
        }
        let claim = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard claim >= 0 else {
            throw errno == EEXIST ? .exists(path: path) : .system(path: path, reason: String(cString: strerror(errno)))
        }
        close(claim)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(path)
            throw .system(path: path, reason: reason)
        }
    }
}

extension AtomicFile.Failure: CustomStringConvertible {
    package var description: String {
        switch self {
        case .exists(let path): "\(path) already exists"
        case .system(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
