import Foundation
import Loupe
import LoupeQuery
import LoupeRules
import LoupeTrace

extension TUIState {
    /// `B`, or `:new-rule mock|fault [STATUS]|breakpoint`: a rule for requests like the selected exchange (its
    /// operation), sent to the app that recorded it (every linked app when it came from none).
    mutating func newRule(_ argument: String?, _ environment: TUIEnvironment) {
        guard let argument, !argument.trimmingCharacters(in: .whitespaces).isEmpty else {
            openPrompt(.command, text: "new-rule fault 503", environment)
            return
        }
        guard let summary = top.selection else {
            status = .error("new-rule: select an exchange first")
            return
        }
        guard let control = environment.rules else {
            status = .error("new-rule: \(RulesScreen.unlinked)")
            return
        }
        var context = makeContext(environment)
        guard let exchange = context.read("the exchange", { try $0.exchange(id: summary.id) }) ?? nil else {
            status = .error("new-rule: the exchange is no longer in the store")
            return
        }
        let rule: Rule
        switch RuleDraft.rule(argument, from: exchange) {
        case .failure(let problem):
            status = .error("new-rule: \(problem.message)")
            return
        case .success(let made):
            rule = made
        }
        let app = exchange.source.flatMap { source in control.apps().first { $0.name == source.app }?.id }
        guard control.send(.put([rule]), to: app) else {
            status = .error("new-rule: no linked app takes rules")
            return
        }
        status = StatusMessage(TerminalText.line("rule '\(rule.name)' (\(rule.match)) sent; \(keymap.hint(.rules, in: top.keyContext)) shows it"))
    }
}

/// Rules made from a recorded exchange, and the held-request document.
package enum RuleDraft {
    package struct Problem: Error, Hashable { package var message: String }

    /// `mock`, `fault [STATUS]` (503 by default) or `breakpoint`, on requests with `exchange`'s operation.
    package static func rule(_ argument: String, from exchange: TraceExchange) -> Result<Rule, Problem> {
        let words = argument.split(separator: " ").map { $0.lowercased() }
        let match = "~op " + quote(exchange.operation)
        let action: RuleAction
        let name: String
        switch words.first {
        case "mock":
            guard let status = exchange.status else {
                return .failure(Problem(message: "the exchange has no response to answer with"))
            }
            let headers = exchange.responseHeaders.filter { !["content-length", "transfer-encoding", "connection"].contains($0.name.lowercased()) }
            action = .mock(RuleMock(status: status, headers: headers, body: exchange.responseBody?.data ?? Data(),
                                    recordedFrom: exchange.sequence.map(Int.init)))
            name = "mock \(exchange.operation)"
        case "fault":
            let code = words.count > 1 ? Int(words[1]) : 503
            guard let code, (100...599).contains(code) else {
                return .failure(Problem(message: "fault takes an HTTP status from 100 to 599, like fault 503"))
            }
            action = .fault(.status(code))
            name = "fault \(code) \(exchange.operation)"
        case "breakpoint", "break":
            action = .breakpoint(RuleBreakpoint(request: true, response: false))
            name = "hold \(exchange.operation)"
        default:
            return .failure(Problem(message: "expected mock, fault [STATUS] or breakpoint"))
        }
        do {
            return .success(try Rule(name: String(name.prefix(RuleFields.maxNameLength)), match: match, action: action))
        } catch {
            return .failure(Problem(message: "\(error)"))
        }
    }

    static func quote(_ text: String) -> String {
        let plain = !text.isEmpty && !text.contains { $0.isWhitespace || "()&|!\"'~".contains($0) }
        return plain ? text : "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// A held request as the document `e` edits (request line, headers, blank line, body).
    package static func text(of held: HeldRequest) -> String {
        var exchange = TraceExchange(id: held.exchangeID, operation: held.operation, method: held.method, url: held.url,
                                     startedAt: held.since, outcome: .success)
        exchange.requestHeaders = held.headers
        exchange.requestBody = held.body.map { TraceBody(data: $0, size: $0.count, isTruncated: false) }
        return EditableRequest.text(of: exchange)
    }

    /// What the viewer saved for a held request, as the edit sent to the app.
    package static func edit(from text: String, held: HeldRequest) throws(EditableRequest.Problem) -> HoldEdit {
        let original = TraceExchange(id: held.exchangeID, operation: held.operation, method: held.method, url: held.url,
                                     startedAt: held.since, outcome: .success)
        let edited = try EditableRequest.request(from: text, original: original)
        return HoldEdit(method: edited.method, url: edited.url, headers: edited.requestHeaders,
                        body: edited.requestBody?.data ?? Data())
    }
}
