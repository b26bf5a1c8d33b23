import Foundation

/// Reads a small configuration file whole, refusing anything that is not a regular file or is larger than a bound.
package enum BoundedFileReader {
    /// The file's bytes, or `nil` when nothing is at `path`.
    ///
    /// The file is opened non-blocking so a FIFO left at the path cannot hang the start-up, and only regular
    /// files are read.
    package static func read(_ path: String, limit: Int, what: String = "a keymap file is a few lines") throws(ConfigFileError) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw ConfigFileError("cannot read: \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw ConfigFileError("cannot read: \(String(cString: strerror(errno)))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw ConfigFileError("is a directory, not a regular file")
        default: throw ConfigFileError("is not a regular file")
        }
        guard status.st_size <= off_t(limit) else { throw tooLarge(limit, what) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ConfigFileError("cannot read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
            // The size can grow between `fstat` and the reads.
            if data.count > limit { throw tooLarge(limit, what) }
        }
    }

    private static func tooLarge(_ limit: Int, _ what: String) -> ConfigFileError {
        ConfigFileError("larger than \(limit / 1024) KiB; \(what)")
    }
}
