import Foundation
import Loupe
import LoupeBoard
import LoupeCompare
import LoupeContract
import LoupeFilter
import LoupeFormats
import LoupeQuery
import LoupeConfig
import LoupeRules
import LoupeRulesFile
import LoupeTrace

/// What `loupe mcp`'s tools do, on a store opened read-only: each call is checked (``AgentArguments``), answered
/// from what the recorder stored (already redacted) in the JSON shapes the CLI prints, and bounded
/// (``AgentLimits``). Actions go through the ``AgentActions`` given, which hold each until a person decides.
struct AgentToolbox: Sendable {
    let store: SQLiteTraceStore
    let storePath: String
    /// The rules file `list_rules` reads and `add_rule` appends to (`--rules` or `$LOUPE_RULES`), if any.
    let rulesPath: String?
    /// Nil when the server was started without `--allow-actions`.
    let actions: AgentActions?

    /// The tools `tools/list` offers: the actions only when they can be carried out.
    var tools: [AgentTool] { AgentTool.allCases.filter { !$0.isAction || actions != nil } }

    /// Answers one `tools/call`. Bad arguments and things not found are tool errors (`isError`, a sentence the
    /// agent can correct its call from); an unknown tool is a protocol error, as MCP asks, and so is a failure the
    /// agent cannot correct.
    /// `client` is the caller's name from `initialize`, recorded as the origin of the actions it asks for.
    func call(_ name: String, _ arguments: JSONObject?, client: String? = nil) async throws(JSONRPCError) -> AgentToolResult {
        guard let tool = AgentTool(rawValue: name) else {
            throw .invalidParams("no tool \"\(name)\"; tools/list names them")
        }
        do {
            return try await call(tool, arguments, client: client)
        } catch let refusal as AgentArguments.Refusal {
            if tool.refusesAtProtocol { throw .invalidParams("\(name): \(refusal.message)") }
            return AgentToolResult(text: refusal.message, isError: true)
        } catch let failure as CommandFailure {
            if tool.refusesAtProtocol { throw .invalidParams("\(name): \(failure.message)") }
            return AgentToolResult(text: failure.message, isError: true)
        } catch {
            throw .internalError("\(name) failed: \(error)")
        }
    }

    private func call(_ tool: AgentTool, _ values: JSONObject?, client: String?) async throws -> AgentToolResult {
        let arguments = try AgentArguments(values, allowed: tool.argumentNames)
        switch tool {
        case .listExchanges:
            let filter = try parseFilter(arguments.string("filter"))
            let limit = try arguments.count("limit", in: AgentLimits.exchanges, default: 50)
            let order = try arguments.choice("order", ["newest", "oldest"], default: "newest")
            return try list(filter: filter, limit: limit, newestFirst: order == "newest")
        case .search:
            let text = try arguments.requiredString("text", maxLength: AgentLimits.searchText.upperBound)
            let extra = try parseFilter(arguments.string("filter"))
            let limit = try arguments.count("limit", in: AgentLimits.exchanges, default: 50)
            guard let found = try parseFilter(Self.searchFilter(text)) else { throw AgentArguments.Refusal(message: "text is required") }
            return try list(filter: extra.map { .and(found, $0) } ?? found, limit: limit, newestFirst: true)
        case .getExchange:
            let exchange = try lookup(arguments.requiredString("id", maxLength: 100))
            let bodyBytes = try arguments.count("max_body_bytes", in: AgentLimits.bodyBytes, default: AgentLimits.defaultBodyBytes)
            let messages = try arguments.count("max_messages", in: AgentLimits.messages, default: AgentLimits.defaultMessages)
            return try json(AgentExchangeJSON(exchange, maxBodyBytes: bodyBytes, maxMessages: messages))
        case .explainExchange:
            let exchange = try lookup(arguments.requiredString("id", maxLength: 100))
            return AgentToolResult(text: ExchangeStory.tell(exchange, numbers: store.numbers(referencedBy: exchange)))
        case .stats:
            let filter = try parseFilter(arguments.string("filter"))
            let window = MetricsWindow(rawValue: try arguments.choice("window", ["1m", "5m", "15m", "1h", "all"], default: "all")) ?? .all
            let report = try read { try StatsCommand.Report(store: store, filter: filter, window: window, now: Date()) }
            return try json(report.json)
        case .listRules:
            return try listRules()
        case .compare:
            let a = try Self.inputFile(arguments.requiredString("a", maxLength: AgentLimits.pathBytes), argument: "a")
            let b = try arguments.string("b", maxLength: AgentLimits.pathBytes)
            if let b { try Self.inputFile(b, argument: "b") }
            let (filterA, filterB) = (try arguments.string("a_filter"), try arguments.string("b_filter"))
            guard b != nil || filterA != nil || filterB != nil else {
                throw AgentArguments.Refusal(message: "give b, or a_filter and b_filter to compare two sets of a's exchanges")
            }
            let thresholds = CompareThresholds(latency: try arguments.value("latency", CompareCommand.parseLatency) ?? 0.10,
                                               errorRatePoints: try arguments.value("error_rate", CompareCommand.parseErrorRate) ?? 1,
                                               alpha: try arguments.value("alpha", CompareCommand.parseAlpha) ?? 0.01)
            let limit = try arguments.count("limit", in: AgentLimits.groups, default: AgentLimits.defaultGroups)
            let comparison = try CompareCommand.compare(a, b, filter: arguments.string("filter"), filterA: filterA, filterB: filterB,
                                                        baseline: [], thresholds: thresholds)
            var shape = CompareJSON(comparison)
            shape.cut = Self.cut([("operations", Self.keep(&shape.operations, limit)), ("hosts", Self.keep(&shape.hosts, limit))], limit: limit)
            return try json(shape)
        case .checkContract:
            let path = try Self.inputFile(arguments.requiredString("openapi", maxLength: AgentLimits.pathBytes), argument: "openapi")
            let filter = try FilterOption.parse(arguments.string("filter"))
            let limit = try arguments.count("limit", in: AgentLimits.groups, default: AgentLimits.defaultGroups)
            let contract = try CheckCommand.contract(path)
            var report = DriftReport(contract: contract)
            try CheckCommand.forEachExchange(in: store, matching: filter) { exchange, reference in
                report.add(contract.check(exchange), exchange: exchange, reference: reference)
            }
            var shape = CheckJSON(report)
            shape.cut = Self.cut([("operations", Self.keep(&shape.operations, limit)),
                                  ("unmatchedRequests", Self.keep(&shape.unmatchedRequests, limit))], limit: limit)
            return try json(shape)
        case .replayExchange:
            guard let actions else { throw AgentArguments.Refusal(message: Self.actionsOff) }
            let exchange = try lookup(arguments.requiredString("id", maxLength: 100))
            return AgentToolResult(text: await actions.replay(exchange, origin: AgentActions.origin(client)))
        case .addRule:
            guard let actions else { throw AgentArguments.Refusal(message: Self.actionsOff) }
            let text = try arguments.requiredString("rule", maxLength: 64 * 1024)
            guard let rulesPath else {
                throw AgentArguments.Refusal(message: "no rules file: start `loupe mcp --rules FILE` (or set LOUPE_RULES) to add rules")
            }
            return AgentToolResult(text: await actions.addRule(text, to: rulesPath, origin: AgentActions.origin(client)))
        }
    }

    /// `path` (after `~`) when it names a readable regular file, else a refusal naming what it is: `compare` and
    /// `check_contract` only read the paths they are given, and a FIFO or device would block or never end.
    @discardableResult
    static func inputFile(_ path: String, argument: String) throws -> String {
        let expanded = StoreAccess.expandTilde(path)
        do {
            try InputFile.regular(expanded, role: argument)
        } catch let failure as CommandFailure {
            throw AgentArguments.Refusal(message: failure.message)
        }
        guard access(expanded, R_OK) == 0 else {
            throw AgentArguments.Refusal(message: "cannot read \(argument) \(expanded): \(String(cString: strerror(errno)))")
        }
        return expanded
    }

    /// What the lists (name, whole count) cut to `limit` left out, or nil when none was longer.
    static func cut(_ lists: [(String, Int)], limit: Int) -> String? {
        let lists = lists.filter { $0.1 > limit }
        guard !lists.isEmpty else { return nil }
        let said = lists.map { "\(limit) of \($0.1) \($0.0)" }.joined(separator: " and ")
        return "listed \(said): raise limit (up to \(AgentLimits.groups.upperBound)) or narrow the filter"
    }

    /// Keeps the first `limit` elements of `list`; returns how many it held.
    static func keep<Element>(_ list: inout [Element], _ limit: Int) -> Int {
        defer { list = Array(list.prefix(limit)) }
        return list.count
    }

    static let actionsOff = "actions are off: this server was started without --allow-actions, so it only reads"

    /// The filter `search` runs: the text, taken literally, in the URL, a header line or either body (`~any`, which
    /// the store's text index answers).
    static func searchFilter(_ text: String) -> String {
        let metacharacters = Set("\\^$.|?*+()[]{}")
        var pattern = ""
        for character in text {
            if metacharacters.contains(character) { pattern.append("\\") }
            pattern.append(character)
        }
        let quoted = "\"" + pattern.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        return "~any \(quoted)"
    }

    private func list(filter: TraceFilter?, limit: Int, newestFirst: Bool) throws -> AgentToolResult {
        let summaries = try read { try store.summaries(matching: filter, limit: limit) }
        let ordered = newestFirst ? Array(summaries.reversed()) : summaries
        let page = AgentPage(exchanges: ordered.map(SummaryJSON.init), limit: limit,
                             more: summaries.count == limit ? "the limit was reached: more exchanges may match (narrow the filter or raise limit)" : nil)
        return try json(page)
    }

    private func listRules() throws -> AgentToolResult {
        guard let rulesPath else {
            return AgentToolResult(text: "No rules file: the server was started without --rules and LOUPE_RULES is not set.")
        }
        let rules: [Rule]
        do {
            rules = try RulesFile.read(rulesPath)
        } catch {
            return AgentToolResult(text: "rules file \(error.message(file: rulesPath))", isError: true)
        }
        let listed = try rules.map { rule in
            let touched = try read { try store.summaries(matching: .rule(rule.name), limit: AgentLimits.exchanges.upperBound).count }
            return AgentRuleJSON(name: rule.name, action: rule.action.word, match: rule.match, enabled: rule.limits.enabled,
                                 actedOn: touched, actedOnIsAtLeast: touched == AgentLimits.exchanges.upperBound)
        }
        return try json(AgentRulesJSON(file: rulesPath, rules: listed))
    }

    private func parseFilter(_ text: String?) throws -> TraceFilter? {
        do {
            return try TraceFilter.parseIfPresent(text)
        } catch {
            throw AgentArguments.Refusal(message: "bad filter: \(error)")
        }
    }

    private func lookup(_ reference: String) throws -> TraceExchange {
        try StoreAccess.exchange(reference, in: store, path: storePath)
    }

    private func read<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw StoreAccess.readFailure(error)
        }
    }

    private func json(_ value: some Encodable) throws -> AgentToolResult {
        AgentToolResult(text: try Formatting.json(value))
    }
}

/// `list_exchanges` and `search`: the exchanges, and a sentence when there may be more.
struct AgentPage: Encodable {
    var exchanges: [SummaryJSON]
    var limit: Int
    var more: String?
}

struct AgentRulesJSON: Encodable {
    var file: String
    var rules: [AgentRuleJSON]
}

struct AgentRuleJSON: Encodable {
    var name, action, match: String
    var enabled: Bool
    /// Exchanges in the store the rule acted on, counted up to the exchanges limit.
    var actedOn: Int
    var actedOnIsAtLeast: Bool
}
