import Foundation

/// Reads a small configuration file whole, refusing anything that is not a regular file or is larger than a bound.
enum BoundedFileReader {
    /// The file's bytes, or `nil` when nothing is at `path`.
    ///
    /// The file is opened non-blocking so a FIFO left at the path cannot hang the start-up, and only regular
    /// files are read.
    static func read(_ path: String, limit: Int) throws(KeysFileError) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw KeysFileError("cannot read: \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw KeysFileError("cannot read: \(String(cString: strerror(errno)))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw KeysFileError("is a directory, not a regular file")
        default: throw KeysFileError("is not a regular file")
        }
        guard status.st_size <= off_t(limit) else { throw tooLarge(limit) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw KeysFileError("cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
            // The size can grow between `fstat` and the reads.
            if data.count > limit { throw tooLarge(limit) }
        }
    }

    private static func tooLarge(_ limit: Int) -> KeysFileError {
        KeysFileError("larger than \(limit / 1024) KiB; a keymap file is a few lines")
    }
}
