import Foundation
import LoupeFilter
import LoupeTrace

/// Tab at a prompt: completes the word before the cursor (command names, their choices, export formats, paths,
/// filter operators). One candidate is filled in; several fill in what they share and are listed.
enum CommandCompletion {
    /// The parser's own list, so a new term is completed as soon as it is read.
    static let filterOperators = TraceFilterParser.termNames.map { "~" + $0 }

    static func complete(_ prompt: Prompt, session: TUISession) -> Prompt {
        var prompt = prompt
        let characters = prompt.input.characters
        let cursor = prompt.input.cursor
        var start = cursor
        while start > 0, characters[start - 1] != " " { start -= 1 }
        let word = String(characters[start..<cursor])
        let before = String(characters[..<start]).split(separator: " ").map(String.init)
        let candidates = candidates(for: word, kind: prompt.kind, before: before)
        guard !candidates.isEmpty else {
            prompt.completions = []
            return prompt
        }
        if candidates.count == 1 {
            let done = candidates[0]
            prompt.input.replace(start..<cursor, with: done.hasSuffix("/") ? done : done + " ")
            prompt.completions = []
        } else {
            prompt.input.replace(start..<cursor, with: commonPrefix(candidates))
            prompt.completions = candidates
        }
        return prompt
    }

    /// A filter operator, or after `~gs` a gRPC status name (typed in any case).
    static func filterTerms(completing word: String, after previous: String?) -> [String] {
        if previous == "~gs" { return GRPCStatusName.names.filter { $0.hasPrefix(word.uppercased()) } }
        return word.hasPrefix("~") ? filterOperators.filter { $0.hasPrefix(word) } : []
    }

    static func candidates(for word: String, kind: PromptKind, before: [String]) -> [String] {
        switch kind {
        case .search: return []
        case .filter: return filterTerms(completing: word, after: before.last)
        case .command: break
        }
        guard let name = before.first else {
            let names = Command.allCases.filter(\.runsFromPrompt).map(\.name)
            return names.filter { $0.hasPrefix(word) }
        }
        guard let command = Command(name: name) ?? CommandInvocation.aliases[name] else { return [] }
        switch command.argument {
        case .choice(let words) where before.count == 1:
            return words.filter { $0.hasPrefix(word) }
        case .choice where before.count == 2 && command == .sort:
            return ["asc", "desc"].filter { $0.hasPrefix(word) }
        case .filterExpression:
            return filterTerms(completing: word, after: before.last)
        case .exportTarget:
            let arguments = Array(before.dropFirst())
            let scopes = ExportRequest.Scope.allCases.map(\.rawValue)
            let formats = ExportFormat.allCases.map(\.rawValue)
            if arguments.isEmpty { return (scopes + formats + ["cancel"]).filter { $0.hasPrefix(word) } }
            if arguments.count == 1, scopes.contains(arguments[0]) { return formats.filter { $0.hasPrefix(word) } }
            return paths(completing: word)
        default:
            return []
        }
    }

    /// Files and folders whose path starts with `word` (folders end in `/`), at most 200.
    static func paths(completing word: String) -> [String] {
        let expanded = (word as NSString).expandingTildeInPath
        let folder = word.hasSuffix("/") ? expanded : (expanded as NSString).deletingLastPathComponent
        let prefix = word.hasSuffix("/") ? "" : (expanded as NSString).lastPathComponent
        let shownFolder = word.hasSuffix("/") ? word : String(word.dropLast(prefix.count))
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else {
            return []
        }
        return names.filter { $0.hasPrefix(prefix) && !$0.hasPrefix(".") || (prefix.hasPrefix(".") && $0.hasPrefix(prefix)) }
            .sorted().prefix(200).map { name in
                var isFolder: ObjCBool = false
                let full = ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(name)
                _ = FileManager.default.fileExists(atPath: full, isDirectory: &isFolder)
                return shownFolder + name + (isFolder.boolValue ? "/" : "")
            }
    }

    static func commonPrefix(_ words: [String]) -> String {
        guard var prefix = words.first else { return "" }
        for word in words.dropFirst() {
            while !word.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }
}
