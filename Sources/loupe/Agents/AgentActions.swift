import Foundation
import Loupe
import LoupeApproval
import LoupeConfig
import LoupeRules
import LoupeRulesFile
import LoupeTrace

/// The agent's actions (`--allow-actions`): each is shown to a person exactly as it would act (method, target,
/// count; the rule's text) and carried out only on their "yes". An agent cannot approve itself: the approver reads
/// a terminal the agent does not write to. Every decision is said on stderr with the action and its origin.
actor AgentActions {
    private let approver: any AgentApprover
    private let replayer: StoreReplayer
    private let log: @Sendable (String) -> Void

    init(approver: any AgentApprover, replayer: StoreReplayer, log: @escaping @Sendable (String) -> Void) {
        self.approver = approver
        self.replayer = replayer
        self.log = log
    }

    /// Who asks, as the person deciding sees it: `agent "claude-code" (loupe mcp)`, or `agent (loupe mcp)` for a
    /// client that gave no name. The name is the client's own word, so it is quoted and made safe for a terminal.
    static func origin(_ client: String?) -> String {
        guard let client else { return "agent (loupe mcp)" }
        return "agent \"\(TerminalText.line(client))\" (loupe mcp)"
    }

    /// Replays `exchange` once, after approval; what was sent and what came back, or that nothing was sent.
    func replay(_ exchange: TraceExchange, origin: String = AgentActions.origin(nil)) async -> String {
        let label = exchange.sequence.map { "#\($0)" } ?? ExchangeLabel.id(exchange.id)
        let what = "replay \(label): \(exchange.method) \(exchange.url) (1 request)"
        guard await approver.approve(AgentRequest(origin: origin, tool: "replay_exchange", summary: what, detail: [])) else {
            log("loupe mcp: refused by the person: \(what); nothing was sent")
            return "Refused by the person at the terminal; nothing was sent."
        }
        let result: String
        do {
            result = try await replayer.replay(exchange)
        } catch {
            result = "replay failed: \(error)"
        }
        log("loupe mcp: approved: \(what); \(result)")
        return "Approved and sent: \(exchange.method) \(exchange.url). \(result)"
    }

    /// Appends `rule` (TOML) to the rules file at `path` after approval; apps reading the file (`LOUPE_RULES`)
    /// pick it up as they watch it. The file with the rule added is checked whole before anyone is asked.
    func addRule(_ rule: String, to path: String, origin: String = AgentActions.origin(nil)) async -> String {
        let current = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let updated = current + (current.isEmpty || current.hasSuffix("\n") ? "" : "\n") + "\n" + rule + (rule.hasSuffix("\n") ? "" : "\n")
        let names: [String]
        do {
            let before = Set(try RulesDocument.parse(current).map(\.name))
            names = try RulesDocument.parse(updated).map(\.name).filter { !before.contains($0) }
        } catch {
            return "The rule was not added: the rules file with it would be invalid (\(error.message(file: path)))."
        }
        let what = "add to \(path) the rule\(names.count == 1 ? "" : "s") \(names.joined(separator: ", "))"
        guard await approver.approve(AgentRequest(origin: origin, tool: "add_rule", summary: what,
                                                  detail: rule.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))) else {
            log("loupe mcp: refused by the person: \(what); the file is unchanged")
            return "Refused by the person at the terminal; the rules file is unchanged."
        }
        do {
            try Data(updated.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            log("loupe mcp: approved but not written: \(what): \(error.localizedDescription)")
            return "Approved, but the rules file could not be written: \(error.localizedDescription)"
        }
        log("loupe mcp: approved: \(what)")
        return "Approved and added: \(names.joined(separator: ", ")) in \(path)."
    }
}

/// Someone who decides on an agent's request. Implementations never decide on their own.
protocol AgentApprover: Sendable {
    func approve(_ request: AgentRequest) async -> Bool
}

/// Nobody to ask: every action is refused, with why. Used with `--allow-actions` when no terminal is given.
struct NoApprover: AgentApprover {
    func approve(_ request: AgentRequest) async -> Bool { false }
}
