import Foundation

/// The file-system steps behind ``FilePromptHistory``: owner-only folders, and reading a bounded tail.
enum HistoryFolder {
    /// A system call failed on `path`.
    struct Failure: Error, CustomStringConvertible {
        var path: String
        var reason: String

        init(_ path: String, errno code: Int32) {
            self.path = path
            reason = String(cString: strerror(code))
        }

        var description: String { "\(path): \(reason)" }
    }

    /// Creates `folder` and any missing parents, each mode 0700 (the XDG spec asks this of the state folder);
    /// folders already there are left as they are.
    static func create(_ folder: String) throws(Failure) {
        var missing: [String] = []
        var current = folder
        while !current.isEmpty, current != "/", access(current, F_OK) != 0 {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for path in missing.reversed() where mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw Failure(path, errno: errno)
        }
    }

    /// The last `limit` bytes of the regular file at `path`, starting at a line, or `nil` when nothing is there.
    static func tail(of path: String, limit: Int) throws(Failure) -> Data? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw Failure(path, errno: errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(path, errno: errno) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw Failure(path, errno: EINVAL) }
        let skip = max(0, Int(status.st_size) - limit)
        if skip > 0, lseek(descriptor, off_t(skip - 1), SEEK_SET) < 0 { throw Failure(path, errno: errno) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while data.count <= limit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw Failure(path, errno: errno) }
            if count == 0 { break }
            data.append(contentsOf: chunk[..<count])
        }
        guard skip > 0 else { return data }
        // Read from one byte early: when that byte is a newline, the tail starts exactly at a line.
        guard let newline = data.firstIndex(of: UInt8(ascii: "\n")) else { return Data() }
        return data[data.index(after: newline)...]
    }
}
