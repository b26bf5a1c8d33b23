import Foundation
import LoupeTUI
import LoupeTrace
import Synchronization

/// The TUI as `loupe tui` runs it, on a ``BenchTerminal``: a read-only `SQLiteTraceStore`, the public
/// `TUIApp` initializer (standard keys, 200 ms polls) and `run(on:)` on its own task. The benchmark thread
/// presses keys and waits for the frame they cause.
final class DrivenTUI {
    let screen: BenchTerminal
    private let outcome = Outcome()

    /// Starts the TUI on the store at `path`; returns at once (``waitForFirstFrame()`` waits for it).
    init(path: String, width: Int = 120, height: Int = 40) {
        let screen = BenchTerminal(width: width, height: height)
        self.screen = screen
        let outcome = outcome
        Task {
            defer { outcome.finished.signal() }
            do {
                let store = try SQLiteTraceStore(path: path, readOnly: true)
                let app = TUIApp(store: store, storeName: path, replayer: nil)
                try await app.run(on: screen)
                try store.close()
            } catch {
                outcome.failure.withLock { $0 = "\(error)" }
            }
        }
    }

    /// The first frame's text.
    func waitForFirstFrame() throws -> String {
        try frame(after: 0)
    }

    /// Presses `keys` (read in one turn of the loop) and returns the text of the frame they cause. Throws when no
    /// frame comes within a minute: a key that leaves the screen as it was draws nothing.
    @discardableResult
    func press(_ keys: Key...) throws -> String {
        let count = screen.frameCount
        screen.press(keys)
        return try frame(after: count)
    }

    /// Types `text` one character at a time, a frame after each (as a person types), outside any measurement.
    func type(_ text: String) throws {
        for character in text { try press(.char(character)) }
    }

    /// Quits (`q` on the exchanges list) and waits for the loop to end.
    func quit() {
        screen.press(["q"])
        outcome.finished.wait()
    }

    private func frame(after count: Int) throws -> String {
        guard let text = screen.waitForFrame(after: count) else {
            throw DriveFailure(outcome.failure.withLock { $0 } ?? "no frame within a minute; the screen showed:\n\(screen.text)")
        }
        return text
    }
}

/// How the TUI's task ended: the error that stopped it, if any, and a signal once it has.
private final class Outcome: Sendable {
    let failure = Mutex<String?>(nil)
    let finished = DispatchSemaphore(value: 0)
}

struct DriveFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
