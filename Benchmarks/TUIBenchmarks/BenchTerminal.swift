import Foundation
import LoupeTUI

/// A ``Terminal`` in memory that two threads share: the benchmark queues keys and waits for frames, the TUI's
/// own loop (`TUIApp.run(on:)`, on its task) reads the keys and draws. `nextKey(timeout:)` blocks as a
/// terminal's does, so the measured path is the real loop's: wake on a key, handle it, render, draw.
///
/// `@unchecked Sendable`: every stored `var` is read and written only with `condition` locked, and `size` is a
/// `let`, so the two threads never touch state unsynchronized.
final class BenchTerminal: Terminal, @unchecked Sendable {
    let size: Size
    private let condition = NSCondition()
    private var pendingKeys: [Key] = []
    private var frames = 0
    private var lastBuffer: Buffer?

    init(width: Int, height: Int) {
        size = Size(width: width, height: height)
    }

    /// How many frames were drawn so far.
    var frameCount: Int { condition.withLock { frames } }

    /// The last frame, as text.
    var text: String { condition.withLock { lastBuffer?.text ?? "" } }

    /// Queues `keys` at once (the loop reads them in one turn) and wakes the loop.
    func press(_ keys: [Key]) {
        condition.withLock {
            pendingKeys += keys
            condition.broadcast()
        }
    }

    /// Waits until more than `count` frames were drawn; the newest frame's text, or `nil` after `timeout`.
    func waitForFrame(after count: Int, timeout: Duration = .seconds(60)) -> String? {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds))
        return condition.withLock {
            while frames <= count {
                guard condition.wait(until: deadline) else { return nil }
            }
            return lastBuffer?.text
        }
    }

    func draw(_ buffer: Buffer) {
        condition.withLock {
            lastBuffer = buffer
            frames += 1
            condition.broadcast()
        }
    }

    func nextKey(timeout: Duration) -> Key? {
        condition.withLock {
            if pendingKeys.isEmpty, timeout > .zero {
                let (seconds, attoseconds) = timeout.components
                _ = condition.wait(until: Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18))
            }
            return pendingKeys.isEmpty ? nil : pendingKeys.removeFirst()
        }
    }
}
