import ArgumentParser
import Foundation
import LoupeTrace
import LoupeFormats

/// `loupe`: record, inspect and replay HTTP traffic.
@main
struct LoupeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loupe",
        abstract: "A resilient HTTP client's flight recorder and terminal UI.",
        discussion: "STORE defaults to $LOUPE_STORE, else $XDG_STATE_HOME/loupe/traces.sqlite (~/.local/state/loupe/traces.sqlite).",
        version: LoupeVersion.current,
        subcommands: [
            DemoCommand.self, TUICommand.self, SendCommand.self, ListCommand.self, ShowCommand.self, StatsCommand.self,
            ExportCommand.self, ImportCommand.self, CurlCommand.self, PruneCommand.self, RedactCommand.self, ReplayCommand.self,
            ListenCommand.self, RulesCommand.self, WSCommand.self, ServeCommand.self, CheckCommand.self, CompareCommand.self,
            MCPCommand.self, ApproveCommand.self, IndexCommand.self,
        ]
    )

    /// Exit codes per the command-line contract: 0 success, 1 the operation found failures, 2 bad usage or input.
    static func main() async {
        do {
            if let topic = unknownHelpTopic(Array(CommandLine.arguments.dropFirst())) {
                throw CommandFailure.badInput("no command '\(topic)'; 'loupe help' lists them")
            }
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            try StandardStreams.flushOutput()
        } catch {
            switch report(for: error) {
            case .help(let text):
                print(text)
                Foundation.exit(0)
            case .failure(let line, let code):
                if let line { StandardStreams.error(line + "\n") }
                Foundation.exit(code)
            }
        }
    }

    /// The word of `loupe help WORD…` that names no command, or nil. ArgumentParser answers an unknown topic with
    /// the top-level help and exit 0, which reads as success to a script.
    static func unknownHelpTopic(_ arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        var commands: [any ParsableCommand.Type] = configuration.subcommands
        for word in arguments.dropFirst() where !word.hasPrefix("-") {
            guard let command = commands.first(where: { $0._commandName == word }) else { return word }
            commands = command.configuration.subcommands
        }
        return nil
    }

    /// What `main` does with `error`: help goes to stdout with exit 0; everything else is at most one stderr line
    /// `loupe: …` (control characters made visible) and the contract's exit code. Usage errors exit 2, never
    /// ArgumentParser's 64, and never print its `Error:`/`Usage:`/`Help:` block.
    static func report(for error: any Error) -> ErrorReport {
        if let failure = error as? CommandFailure {
            return .failure(line: "loupe: " + TerminalText.line(failure.message), code: failure.code)
        }
        let code = exitCode(for: error)
        if code == .success { return .help(fullMessage(for: error)) }
        let status = code == .validationFailure ? 2 : code.rawValue
        let message = message(for: error)
        guard !message.isEmpty else { return .failure(line: nil, code: status) }
        return .failure(line: "loupe: " + TerminalText.line(oneLine(message)), code: status)
    }

    /// ArgumentParser's message as one line in the CLI's voice: `The value 'inf' is invalid for '--timeout
    /// <seconds>': expected …` becomes `--timeout: expected …`; several lines are joined with "; ".
    static func oneLine(_ message: String) -> String {
        let lines = message.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var text = lines.joined(separator: "; ")
        let invalidValue = /The value '(?<value>.*)' is invalid for '(?<name>[^' ]+)(?: <[^>]*>)?'(?<reason>: .*)?/
        if let match = text.wholeMatch(of: invalidValue) {
            let (value, name) = (String(match.output.value), String(match.output.name))
            let reason = match.output.reason.map { String($0.dropFirst(2)) }
            text = "\(name): " + (reason ?? "invalid value '\(value)'")
        }
        // "Missing expected argument …" reads like the CLI's own lowercase messages; "URL …" keeps its capitals.
        if let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true {
            text = first.lowercased() + text.dropFirst()
        }
        return text
    }
}

/// How the CLI ends after an error.
enum ErrorReport: Equatable {
    /// Help or another clean exit: the text goes to stdout and the exit code is 0.
    case help(String)
    /// At most one stderr line, then exit with `code`.
    case failure(line: String?, code: Int32)
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
