import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP server that answers each connection by running a script over the raw socket, for responses a
/// real HTTP server library will not produce: an HTTP/1.0 status line, a body cut short, a body that never ends.
///
/// Each connection is served on its own thread with blocking calls; ``stop()`` closes the listener and makes every
/// script's next ``RawConnection/write(_:)`` fail, so scripts that loop forever end.
final class RawHTTPServer: Sendable {
    /// `http://127.0.0.1:PORT`.
    let baseURL: URL
    private let listener: Int32
    private let stopped = StopFlag()

    /// Starts listening on an ephemeral loopback port; `script` runs once per accepted connection.
    init(_ script: @escaping @Sendable (RawConnection) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        baseURL = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
        let stopped = self.stopped
        Thread.detachNewThread { [listener] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread {
                    script(RawConnection(fd: connection, isStopped: { stopped.isSet }))
                    close(connection)
                }
            }
        }
    }

    /// Stops accepting and makes every running script's writes fail.
    func stop() {
        guard stopped.set() else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }
}

/// Set once, read from any thread.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    /// Sets the flag; `true` if this call set it.
    func set() -> Bool { !value.exchange(true, ordering: .acquiringAndReleasing) }
}

/// One accepted connection, as a script sees it.
struct RawConnection: Sendable {
    let fd: Int32
    let isStopped: @Sendable () -> Bool

    /// Reads the request head (up to the blank line) and returns it as text.
    @discardableResult
    func readHead() -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 65_536, read(fd, &byte, 1) == 1 {
            bytes.append(byte)
            if bytes.count >= 4, bytes.suffix(4) == [13, 10, 13, 10] { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Sends `bytes`; `false` once the peer has gone or the server stopped.
    @discardableResult
    func write(_ bytes: some Sequence<UInt8>) -> Bool {
        guard !isStopped() else { return false }
        let data = Array(bytes)
        var sent = 0
        while sent < data.count {
            let result = data[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard result > 0 else { return false }
            sent += result
        }
        return true
    }

    /// Sends `text` as UTF-8.
    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Waits `milliseconds` on the server's side (a script's pacing, not a test sleeping for a result).
    ///
    /// Real time on purpose: the server stands for a peer on the wire, and what the tests check (AsyncHTTPClient's
    /// own read timeout restarting on every byte, Loupe's whole-attempt timeout) runs on NIO's real clock, which
    /// no injected clock reaches. The test itself waits on the client's result, never on a sleep.
    func pause(milliseconds: Int) {
        usleep(UInt32(milliseconds * 1000))  // the server's pacing on its own thread, not a test waiting for a result
    }
}
