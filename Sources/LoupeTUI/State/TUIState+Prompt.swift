import Foundation
import LoupeTrace
import LoupeFilter

extension TUIState {
    /// Opens a prompt of `kind` holding `text`, with its history.
    mutating func openPrompt(_ kind: PromptKind, text: String, _ environment: TUIEnvironment) {
        prompt = Prompt(kind, text: text, history: environment.history.entries(for: kind.historyName))
        promptEdited(environment)
    }

    /// Brings the open prompt's problem, hint and search up to date with its text, if it changed: called once
    /// per frame (``TUIAction/frame``), so a line is parsed once however many keys a turn typed into it.
    mutating func checkPrompt(_ environment: TUIEnvironment) {
        guard prompt?.needsCheck == true else { return }
        promptEdited(environment)
    }

    /// A key while a prompt is open: an editing command from the keymap's prompt rows, or text. The text is
    /// checked before the next frame (``checkPrompt(_:)``), not here.
    mutating func promptKey(_ key: Key, _ environment: TUIEnvironment) {
        guard var prompt else { return }
        if case .paste(let text) = key {
            prompt.input.insert(pasted: text)
            prompt.completions = []
        } else if let command = keymap.command(for: key, in: .prompt) {
            switch command {
            case .submit:
                return submitPrompt(environment)
            case .cancel:
                self.prompt = nil
                if prompt.kind == .search { session.search = nil }
                return
            case .complete:
                prompt = CommandCompletion.complete(prompt, session: session)
            case .historyPrevious:
                prompt.olderEntry()
            case .historyNext:
                prompt.newerEntry()
            default:
                prompt.input.apply(command)
            }
            prompt.completions = command == .complete ? prompt.completions : []
        } else if case .char(let character) = key {
            prompt.input.insert(character)
            prompt.completions = []
        } else {
            return
        }
        prompt.needsCheck = true
        self.prompt = prompt
    }

    /// Checks the text as it is typed: a filter is parsed (the error's place marked), a search is run.
    private mutating func promptEdited(_ environment: TUIEnvironment) {
        guard var prompt else { return }
        prompt.needsCheck = false
        prompt.hint = nil
        let text = prompt.input.text
        switch prompt.kind {
        case .filter:
            prompt.problem = nil
            if !text.trimmingCharacters(in: .whitespaces).isEmpty {
                do {
                    _ = try TraceFilter.parse(text)
                } catch {
                    prompt.problem = PromptProblem(error.message, offset: max(0, error.position - 1))
                }
            }
        case .search:
            self.prompt = prompt
            if !text.isEmpty {
                search(text, forward: true, fromCurrent: true, environment)
                prompt.problem = status?.isError == true ? PromptProblem("not found") : nil
                // Which hit of how many (`/slow: 3/7`), shown once the search is applied.
                searchHit = status?.isError == false ? status : nil
                status = nil
            }
        case .command:
            prompt.problem = CommandInvocation.problem(in: text)
            if prompt.problem == nil, case .success(let line) = CommandInvocation.parse(text),
               line.command == .repeatReplay, let argument = line.argument {
                switch RepeatPlan.parse(argument) {
                case .success(let plan): prompt.hint = plan.summary
                case .failure(let problem): prompt.problem = problem
                }
            }
        }
        self.prompt = prompt
    }

    private mutating func submitPrompt(_ environment: TUIEnvironment) {
        checkPrompt(environment)
        guard let prompt else { return }
        let text = prompt.input.text
        if prompt.kind == .filter, let problem = prompt.problem {
            status = .error("filter: \(problem.message) (fix it, or Esc to keep the current filter)")
            return
        }
        self.prompt = nil
        if !text.trimmingCharacters(in: .whitespaces).isEmpty {
            pendingEffects.append(.recordHistory(text, prompt.kind))
        }
        switch prompt.kind {
        case .filter:
            applyFilter(text, environment)
        case .search:
            session.search = text.isEmpty ? nil : text
            if !text.isEmpty {
                status = prompt.problem == nil ? searchHit : .error("not found: \(text)")
            }
        case .command:
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return }
            switch CommandInvocation.parse(text) {
            case .success(let line): run(line.command, argument: line.argument, environment)
            case .failure(let problem): status = .error(problem.message)
            }
        }
    }

    /// `x`, or `:export …`: what to export, how and where; without an argument, a prefilled `:` prompt. Without
    /// a scope: the marked exchanges, else what the filter shows, else the selected one.
    mutating func export(_ argument: String?, _ environment: TUIEnvironment) {
        let defaultScope: ExportRequest.Scope = !session.marks.isEmpty ? .marked
            : session.filter != nil ? .filtered : .selected
        guard let argument, !argument.trimmingCharacters(in: .whitespaces).isEmpty else {
            let name = "loupe-export-\(ExportDefaults.stamp()).har"
            openPrompt(.command, text: "export \(defaultScope.rawValue) har \(name)", environment)
            return
        }
        if argument.trimmingCharacters(in: .whitespaces) == "cancel" {
            pendingEffects.append(.cancelExports)
            return
        }
        var words = argument.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        var scope = defaultScope
        if let first = words.first, let named = ExportRequest.Scope(rawValue: first) {
            scope = named
            words.removeFirst()
            if words.count == 1 {
                words = words[0].split(separator: " ", maxSplits: 1).map(String.init)
            }
        }
        guard words.count == 2, let format = ExportFormat(rawValue: words[0]) else {
            status = .error("export: expected [selected|marked|filtered] curl|har|raw PATH, or cancel")
            return
        }
        let path = words[1].trimmingCharacters(in: .whitespaces)
        var ids: [UUID] = []
        switch scope {
        case .selected:
            guard let id = top.selection?.id else {
                status = .error("export: nothing is selected")
                return
            }
            ids = [id]
        case .marked:
            guard !session.marks.isEmpty else {
                status = .error("export: nothing is marked (\(keymap.hint(.mark, in: top.keyContext)) marks)")
                return
            }
            ids = session.marks.sorted { $0.uuidString < $1.uuidString }
        case .filtered:
            break
        }
        let request = ExportRequest(scope: scope, ids: ids, query: session.query, format: format, path: path)
        status = request.progress(written: 0)
        pendingEffects.append(.export(request))
    }
}

/// Default file names for exports.
enum ExportDefaults {
    /// `20261123-051200`, for a file name that does not collide with the last export.
    static func stamp(_ date: Date = Date()) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02d-%02d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }
}
