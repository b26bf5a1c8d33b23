import Foundation
import Loupe
import LoupeConfig
import LoupeRules
import LoupeRulesFile
import LoupeTrace

extension TUIApp {
    /// Opens each pending rule (as TOML) or held request (as the document `e` edits) in the editor, then sends
    /// what was saved to its app. A file that does not read leaves the app as it was and says why.
    func runRuleEdits(on terminal: any Terminal) {
        let edits = pendingRuleEdits
        pendingRuleEdits = []
        for effect in edits {
            let (app, text, name): (String, String, String)
            switch effect {
            case .editRule(let owner, let rule): (app, text, name) = (owner, RulesDocument.text([rule]), "rule.toml")
            case .editHeld(let owner, let held):
                // The file's name says until when the app holds it: vim and most editors show the name while editing.
                let until = heldDeadline(held, app: owner).map { "-until-" + clock($0).replacingOccurrences(of: ":", with: ".") } ?? ""
                (app, text, name) = (owner, held.phase == .request ? RuleDraft.text(of: held) : RuleDraft.responseText(of: held),
                                     "held-\(held.phase.rawValue)\(until).http")
            default: continue
            }
            var result: Result<String, ExternalEditor.Problem> = .failure(.init(message: "the editor did not run"))
            terminal.suspend { result = editor.editPrivately(text, named: name) }
            lastDrawn = nil
            switch result {
            case .failure(let problem):
                apply(.finished(.error(TerminalText.line("edit: \(problem.message); nothing was changed")), replay: false))
            case .success(let saved):
                apply(.finished(ruleEdited(effect, app: app, saved: saved), replay: false))
            }
        }
    }

    /// When the app lets `held` go on unchanged: when it was held plus the app's longest hold.
    private func heldDeadline(_ held: HeldRequest, app: String) -> Date? {
        guard let maxHold = environment.rules?.apps().first(where: { $0.id == app })?.maxHold, maxHold.isFinite else { return nil }
        return held.since.addingTimeInterval(maxHold)
    }

    /// `HH:mm:ss` in the TUI's time zone.
    private func clock(_ date: Date) -> String {
        String(Quantity.clock(date, calendar: state.calendar).prefix(8))
    }

    private func ruleEdited(_ effect: TUIEffect, app: String, saved: String) -> StatusMessage {
        guard let control = environment.rules else { return .error(RulesScreen.unlinked) }
        switch effect {
        case .editRule(_, let rule):
            let rules: [Rule]
            do {
                rules = try RulesDocument.parse(saved)
            } catch {
                return .error(TerminalText.line("edit: \(error.message(file: "rule")); the rule is unchanged"))
            }
            // Renamed or removed in the editor: the old rule goes; every rule saved is set.
            if !rules.contains(where: { $0.name == rule.name }) { control.send(.remove(rule.name), to: app) }
            guard rules.isEmpty || control.send(.put(rules), to: app) else { return .error("edit: the app is no longer linked") }
            return StatusMessage(TerminalText.line(rules.isEmpty ? "rule '\(rule.name)' removed"
                : "sent \(rules.count) rule\(rules.count == 1 ? "" : "s"): " + rules.map(\.name).joined(separator: ", ")))
        case .editHeld(_, let held):
            let edit: HoldEdit
            do {
                edit = try held.phase == .request ? RuleDraft.edit(from: saved, held: held) : RuleDraft.responseEdit(from: saved)
            } catch {
                return .error(TerminalText.line("edit: \(error); the request is still held"))
            }
            // Too late: the app already let it go on unchanged, and an edit sent now would say it was applied.
            let stillHeld = control.apps().first { $0.id == app }?.held.contains { $0.id == held.id } ?? false
            if let deadline = heldDeadline(held, app: app), environment.wallClock() >= deadline {
                return .error(TerminalText.line("edit: too late: the hold ended at \(clock(deadline)) and the app continued "
                    + "\(held.method) \(held.operation) unchanged; the edit was not sent"))
            }
            if !stillHeld {
                return .error(TerminalText.line("edit: \(held.method) \(held.operation) is no longer held (the app let it go on); "
                    + "the edit was not sent"))
            }
            guard control.send(.decide(held.id, .edit(edit)), to: app) else { return .error("edit: the app is no longer linked") }
            return StatusMessage(TerminalText.line("continuing \(held.method) \(held.operation), edited"))
        default:
            return StatusMessage("")
        }
    }
}

extension RuleDraft {
    /// A held response as `HTTP/1.1 STATUS`, header lines, a blank line and the body.
    package static func responseText(of held: HeldRequest) -> String {
        var text = "HTTP/1.1 \(held.status ?? 200)\n"
        for header in held.headers { text += "\(header.name): \(header.value)\n" }
        return text + "\n" + String(decoding: held.body ?? Data(), as: UTF8.self)
    }

    /// The status, headers and body saved for a held response.
    package static func responseEdit(from text: String) throws(EditableRequest.Problem) -> HoldEdit {
        var lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first, first.hasPrefix("HTTP/"), let code = first.split(separator: " ").dropFirst().first.flatMap({ Int($0) }),
              (100...599).contains(code) else {
            throw EditableRequest.Problem(line: 1, message: "expected a status line like 'HTTP/1.1 200'")
        }
        lines.removeFirst()
        var headers: [TraceHeader] = []
        var index = 0
        while index < lines.count, !lines[index].isEmpty {
            guard let colon = lines[index].firstIndex(of: ":"), colon != lines[index].startIndex else {
                throw EditableRequest.Problem(line: index + 2, message: "expected a header 'Name: value' or a blank line before the body")
            }
            headers.append(TraceHeader(name: String(lines[index][..<colon]).trimmingCharacters(in: .whitespaces),
                                       value: String(lines[index][lines[index].index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
            index += 1
        }
        let body = index + 1 < lines.count ? lines[(index + 1)...].joined(separator: "\n") : ""
        return HoldEdit(status: code, headers: headers, body: Data(body.utf8))
    }
}
