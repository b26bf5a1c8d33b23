import ArgumentParser
import Foundation
import LoupeTUI

/// Runs a ``TUIApp`` on the real terminal (what `loupe tui` does), restoring the terminal on every exit.
enum TUIRunner {
    /// Takes over the terminal, runs `app` until the user quits, and gives the terminal back, also on errors.
    static func run(_ app: TUIApp, mouse: Bool = true) async throws {
        let terminal: CursesTerminal
        do {
            terminal = try CursesTerminal(mouse: mouse)
        } catch let failure as CursesTerminal.Failure {
            throw CommandFailure.badInput("cannot start the terminal UI: \(failure)")
        }
        defer { terminal.shutdown() }
        try await app.run(on: terminal)
        // Ctrl-C quit as `q` does (waiting for replays in flight), and still ends the command as an interrupt.
        if terminal.wasInterrupted { throw ExitCode(128 + SIGINT) }
    }
}
