import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tells a waiting TUI that its store changed: `loupe tui --listen` signals it after each batch the listener
/// commits, and the terminal's key wait watches it beside the keyboard, so a linked exchange is drawn as soon as it
/// is stored instead of at the next poll.
///
/// A non-blocking pipe: ``signal()`` writes a byte (a full pipe already says "changed", so a failed write loses
/// nothing), the screen's wait wakes on ``readDescriptor``, and ``drain()`` empties it. Sendable: two descriptors
/// fixed at creation; `read` and `write` on a pipe are safe from any thread.
package final class StoreWakeup: Sendable {
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// Nil when the process is out of descriptors: the TUI then only polls.
    package init?() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        (readDescriptor, writeDescriptor) = (fds[0], fds[1])
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// The store changed.
    package func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Whether anything was signalled since the last drain; empties the pipe.
    package func drain() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 256)
        var any = false
        while read(readDescriptor, &buffer, buffer.count) > 0 { any = true }
        return any
    }
}
