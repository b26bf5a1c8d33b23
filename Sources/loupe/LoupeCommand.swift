import ArgumentParser
import Foundation

/// `loupe`: record, inspect and replay HTTP traffic.
@main
struct LoupeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loupe",
        abstract: "A resilient HTTP client's flight recorder and terminal inspector.",
        discussion: "STORE defaults to $LOUPE_STORE, else $XDG_STATE_HOME/loupe/traces.sqlite (~/.local/state/loupe/traces.sqlite).",
        subcommands: [
            DemoCommand.self, TUICommand.self, SendCommand.self, ListCommand.self, ShowCommand.self, StatsCommand.self,
            ExportCommand.self, ImportCommand.self, CurlCommand.self, PruneCommand.self,
        ]
    )

    /// Exit codes per the command-line contract: 0 success, 1 the operation found failures, 2 bad usage or input.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("loupe: \(failure.message)\n".utf8))
            Foundation.exit(failure.code)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                print(message)
                Foundation.exit(0)
            }
            if code.rawValue == 1 && message.isEmpty { Foundation.exit(1) }
            if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            // ArgumentParser uses 64 for usage errors; the contract says 2.
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}

/// A failure the CLI reports in one line with a contract exit code.
struct CommandFailure: Error {
    var code: Int32
    var message: String

    /// Bad usage or bad input (exit 2).
    static func badInput(_ message: String) -> CommandFailure { CommandFailure(code: 2, message: message) }
    /// The operation ran and found failures (exit 1).
    static func failed(_ message: String) -> CommandFailure { CommandFailure(code: 1, message: message) }
}
