/// A line typed at the `:` prompt: a command's ``Command/name`` and the rest as its argument.
package struct CommandInvocation: Hashable, Sendable {
    package var command: Command
    package var argument: String?

    /// Short names people type from habit (vim's `:q`).
    static let aliases: [String: Command] = ["q": .quit, "exit": .quit, "h": .help, "?": .help, "o": .sort]

    /// Reads `text`: the first word names the command; the rest (trimmed) is its argument.
    package static func parse(_ text: String) -> Result<CommandInvocation, PromptProblem> {
        let trimmed = text.drop { $0 == " " }
        let name = String(trimmed.prefix { $0 != " " })
        let rest = trimmed.dropFirst(name.count).drop { $0 == " " }
        guard let command = Command(name: name) ?? aliases[name], command.runsFromPrompt else {
            return .failure(PromptProblem("unknown command '\(name)' (Tab lists them)", offset: text.count - trimmed.count))
        }
        if command.argument == nil, !rest.isEmpty {
            return .failure(PromptProblem("\(command.name) takes no argument", offset: text.count - rest.count))
        }
        return .success(CommandInvocation(command: command, argument: rest.isEmpty ? nil : String(rest)))
    }

    /// What is wrong with the line so far, if anything, while it is typed (nothing while the first word is
    /// still being typed).
    static func problem(in text: String) -> PromptProblem? {
        guard text.contains(" ") else { return nil }
        if case .failure(let problem) = parse(text) { return problem }
        return nil
    }
}
