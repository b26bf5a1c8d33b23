import Foundation
import HTTPTypes
import Loupe
import LoupeTrace

/// Rules as a tree of fields (``JSONValue``): the one reader that checks every key and number of a rule, whatever
/// syntax carried it. The rules file's TOML (`RulesDocument` in `LoupeRulesFile`) is read into this tree and checked
/// here; the live link carries the same tree as JSON (``json(_:)`` and ``rules(json:)``), so an app that links but
/// reads no rules file compiles no TOML parser. Schema in Documentation/Rules.md.
package enum RuleFields {
    /// The most rules one document holds, and the longest text of a name: far above real use, bounding memory.
    package static let maxRules = 1000
    package static let maxNameLength = 100
    /// A rules document is read whole; past this it is refused.
    package static let maxBytes = 1024 * 1024

    static let ruleKeys: Set<String> = ["name", "match", "enabled", "times", "until", "probability",
                                        "mock", "fault", "rewrite", "breakpoint", "breaker"]
    static let actions = ["mock", "fault", "rewrite", "breakpoint", "breaker"]

    /// The rules in `list`, each an object of a rule's fields, in order; names are unique.
    package static func rules(_ list: [JSONValue]) throws(RuleFieldError) -> [Rule] {
        guard list.count <= maxRules else { throw RuleFieldError("more than \(maxRules) rules") }
        var rules: [Rule] = []
        var names: Set<String> = []
        for (index, element) in list.enumerated() {
            guard case .object(let entry) = element else {
                throw RuleFieldError(rule: index, "each rule must be a [[rule]] table")
            }
            let rule = try self.rule(entry, index: index)
            guard names.insert(rule.name).inserted else {
                throw RuleFieldError(rule: index, key: "name", "two rules are named '\(rule.name)'")
            }
            rules.append(rule)
        }
        return rules
    }

    /// The rule in `table`, the rule at `index` (0-based) of its document.
    package static func rule(_ table: JSONObject, index: Int) throws(RuleFieldError) -> Rule {
        let label = "rule \(index + 1)"
        func fail(_ key: String?, _ reason: String) -> RuleFieldError { RuleFieldError(rule: index, key: key, reason) }
        for key in table.keys where !ruleKeys.contains(key) {
            throw fail(key, "\(label): unknown key '\(key.prefix(40))'")
        }
        guard let name = table["name"]?.text, !name.isEmpty, name.count <= maxNameLength,
              !name.contains(where: { $0.isNewline || $0 == "\0" }) else {
            throw fail("name", "\(label): needs a name (1 to \(maxNameLength) characters on one line)")
        }
        let named = "rule '\(name)'"
        let match = table["match"]?.text ?? ""
        var limits = RuleLimits()
        if let value = table["enabled"] {
            guard let enabled = value.flag else { throw fail("enabled", "\(named): enabled must be true or false") }
            limits.enabled = enabled
        }
        if let value = table["times"] {
            guard let times = value.whole, (1...1_000_000_000).contains(times) else {
                throw fail("times", "\(named): times must be a whole number from 1 to 1000000000")
            }
            limits.times = times
        }
        if let value = table["until"] {
            guard let text = value.text, let date = ISO8601DateFormatter().date(from: text) else {
                throw fail("until", "\(named): until must be a time like \"2026-11-27T04:00:00Z\"")
            }
            limits.until = date
        }
        if let value = table["probability"] {
            guard let probability = value.real, (0...1).contains(probability) else {
                throw fail("probability", "\(named): probability must be a number from 0 to 1")
            }
            limits.probability = probability
        }
        let present = actions.filter { table[$0] != nil }
        guard present.count == 1, let word = present.first, case .object(let body)? = table[word] else {
            throw fail(nil, "\(named): needs exactly one action table: mock, fault, rewrite, breakpoint or breaker")
        }
        let action = try self.action(word, body, named: named, index: index)
        if case .breaker = action {} else if match.isEmpty {
            throw fail(nil, "\(named): needs match, a filter such as \"~op getUser\" (\"~u .\" for every request)")
        }
        let rule: Rule
        do {
            rule = try Rule(name: name, match: match.isEmpty ? "~u ." : match, action: action, limits: limits)
        } catch {
            throw fail("match", "\(named): match: \(error)")
        }
        // A term about the response or the recorded exchange is never true of a request about to be sent: such a
        // rule could never act, which a document must not be able to say without a word.
        if case .breaker = action {} else if let term = responseTerm(in: rule.filter) {
            throw fail("match", "\(named): match: \(term) is about the response or the recorded "
                + "exchange, which a rule never sees (it acts before the request is sent); match the request with "
                + "~m, ~d, ~u, ~h, ~b, ~op or ~att")
        }
        return rule
    }

    /// The first term of `filter` that a request about to be sent cannot have (``RuleSubject`` reads it as false),
    /// as it is written (`~c`), or nil when every term is about the request.
    static func responseTerm(in filter: TraceFilter) -> String? {
        switch filter {
        case .status: "~c"
        case .duration: "~dur"
        case .circuit: "~cb"
        case .error: "~e"
        case .replay: "~replay"
        case .served: "~served"
        case .source: "~src"
        case .rule: "~rule"
        case .grpc: "~grpc"
        case .drift: "~drift"
        case .exchanges: "~drift"
        case .since: "~since"
        case .until: "~until"
        case .responseBody: "~bs"
        case .message: "~msg"
        case .errorText: "~err"
        case .method, .host, .url, .header, .body, .requestBody, .operation, .attempts: nil
        case .not(let inner): responseTerm(in: inner)
        case .and(let left, let right), .or(let left, let right): responseTerm(in: left) ?? responseTerm(in: right)
        }
    }

    private static func action(_ word: String, _ table: JSONObject, named: String, index: Int) throws(RuleFieldError) -> RuleAction {
        func fail(_ text: String) -> RuleFieldError { RuleFieldError(rule: index, key: word, "\(named): \(word): \(text)") }
        func allow(_ keys: Set<String>) throws(RuleFieldError) {
            for key in table.keys where !keys.contains(key) { throw fail("unknown key '\(key.prefix(40))'") }
        }
        func milliseconds(_ key: String) throws(RuleFieldError) -> Duration? {
            guard let value = table[key] else { return nil }
            guard let ms = value.whole, (0...3_600_000).contains(ms) else { throw fail("\(key) must be 0 to 3600000 (milliseconds)") }
            return .milliseconds(ms)
        }
        func status(_ key: String) throws(RuleFieldError) -> Int? {
            guard let value = table[key] else { return nil }
            guard let code = value.whole, (100...599).contains(code) else { throw fail("\(key) must be an HTTP status from 100 to 599") }
            return code
        }
        func headers(_ key: String) throws(RuleFieldError) -> [TraceHeader] {
            guard let value = table[key] else { return [] }
            guard case .object(let fields) = value else { throw fail("\(key) must be a table like { \"content-type\" = \"text/plain\" }") }
            var result: [TraceHeader] = []
            for name in fields.keys.sorted() {
                guard let text = fields[name]?.text, HTTPHeaderCheck.valid(name: name, value: text) else {
                    throw fail("\(key): '\(name.prefix(40))' must be a header name with a text value")
                }
                result.append(TraceHeader(name: name, value: text))
            }
            return result
        }
        switch word {
        case "mock":
            try allow(["status", "headers", "body", "body_base64", "from"])
            var mock = RuleMock(status: try status("status") ?? 200, headers: try headers("headers"))
            if let text = table["body"]?.text { mock.body = Data(text.utf8) }
            if let text = table["body_base64"]?.text {
                guard let data = Data(base64Encoded: text) else { throw fail("body_base64 is not base64") }
                mock.body = data
            }
            if let from = table["from"]?.whole { mock.recordedFrom = from }
            return .mock(mock)
        case "fault":
            try allow(["status", "reset", "connect_failed", "timeout", "delay_ms", "response_delay_ms", "cut_after_bytes"])
            var faults: [TransportFault] = []
            if let code = try status("status") { faults.append(.status(code)) }
            if table["reset"]?.flag == true { faults.append(.connectionReset) }
            if table["connect_failed"]?.flag == true { faults.append(.connectFailed) }
            if table["timeout"]?.flag == true { faults.append(.timeout) }
            if let delay = try milliseconds("delay_ms") { faults.append(.latency(delay)) }
            if let delay = try milliseconds("response_delay_ms") { faults.append(.responseDelay(delay)) }
            if let value = table["cut_after_bytes"] {
                guard let bytes = value.whole, (0...Int(Int32.max)).contains(bytes) else { throw fail("cut_after_bytes must be 0 to 2147483647") }
                faults.append(.cutBody(after: bytes))
            }
            guard faults.count == 1, let fault = faults.first else {
                throw fail("give exactly one of status, reset, connect_failed, timeout, delay_ms, response_delay_ms, cut_after_bytes")
            }
            return .fault(fault)
        case "rewrite":
            try allow(["set_headers", "remove_headers", "base_url"])
            var rewrite = RuleRewrite(setHeaders: try headers("set_headers"))
            if let value = table["remove_headers"] {
                guard case .array(let list) = value else { throw fail("remove_headers must be a list of names") }
                for element in list {
                    guard let name = element.text, HTTPHeaderCheck.valid(name: name, value: "") else { throw fail("remove_headers must be a list of names") }
                    rewrite.removeHeaders.append(name)
                }
            }
            if let value = table["base_url"] {
                guard let text = value.text, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                      scheme == "http" || scheme == "https", let host = url.host,
                      RequestTargetCheck.problem(inAuthority: url.port.map { "\(host):\($0)" } ?? host) == nil else {
                    throw fail("base_url must be an http(s) URL with a host and a port up to 65535")
                }
                rewrite.baseURL = url
            }
            return .rewrite(rewrite)
        case "breakpoint":
            try allow(["request", "response"])
            let breakpoint = RuleBreakpoint(request: table["request"]?.flag ?? true, response: table["response"]?.flag ?? false)
            guard breakpoint.request || breakpoint.response else { throw fail("holds nothing: set request or response to true") }
            return .breakpoint(breakpoint)
        default:
            try allow(["key", "force"])
            guard let key = table["key"]?.text, !key.isEmpty, key.count <= 500 else { throw fail("needs key, the circuit key (screen 3 shows them)") }
            guard let text = table["force"]?.text, let override = BreakerOverride(rawValue: text) else {
                throw fail("force must be \"open\", \"closed\" or \"release\"")
            }
            return .breaker(key: key, override: override)
        }
    }

    // MARK: Writing

    /// `rule` as its fields, which ``rule(_:index:)`` reads back as the same rule. Keys in the rules file's order.
    package static func fields(_ rule: Rule) -> JSONObject {
        var object = JSONObject()
        object.add("name", .string(rule.name))
        if case .breaker = rule.action {} else { object.add("match", .string(rule.match)) }
        if !rule.limits.enabled { object.add("enabled", .bool(false)) }
        if let times = rule.limits.times { object.add("times", number(times)) }
        if let until = rule.limits.until { object.add("until", .string(ISO8601DateFormatter().string(from: until))) }
        if rule.limits.probability < 1 { object.add("probability", .number(JSONNumber("\(rule.limits.probability)"))) }
        var body = JSONObject()
        switch rule.action {
        case .mock(let mock):
            body.add("status", number(mock.status))
            if !mock.headers.isEmpty { body.add("headers", headers(mock.headers)) }
            if !mock.body.isEmpty {
                if let text = String(data: mock.body, encoding: .utf8) { body.add("body", .string(text)) }
                else { body.add("body_base64", .string(mock.body.base64EncodedString())) }
            }
            if let from = mock.recordedFrom { body.add("from", number(from)) }
        case .fault(let fault):
            switch fault {
            case .status(let code): body.add("status", number(code))
            case .connectionReset: body.add("reset", .bool(true))
            case .connectFailed: body.add("connect_failed", .bool(true))
            case .timeout: body.add("timeout", .bool(true))
            case .latency(let delay): body.add("delay_ms", .number(JSONNumber("\(delay.milliseconds)")))
            case .responseDelay(let delay): body.add("response_delay_ms", .number(JSONNumber("\(delay.milliseconds)")))
            case .cutBody(let bytes): body.add("cut_after_bytes", number(bytes))
            }
        case .rewrite(let rewrite):
            if !rewrite.setHeaders.isEmpty { body.add("set_headers", headers(rewrite.setHeaders)) }
            if !rewrite.removeHeaders.isEmpty { body.add("remove_headers", .array(rewrite.removeHeaders.map(JSONValue.string))) }
            if let url = rewrite.baseURL { body.add("base_url", .string(url.absoluteString)) }
        case .breakpoint(let breakpoint):
            body.add("request", .bool(breakpoint.request))
            body.add("response", .bool(breakpoint.response))
        case .breaker(let key, let override):
            body.add("key", .string(key))
            body.add("force", .string(override.rawValue))
        }
        object.add(rule.action.word, .object(body))
        return object
    }

    private static func number(_ value: Int) -> JSONValue { .number(JSONNumber(String(value))) }

    private static func headers(_ headers: [TraceHeader]) -> JSONValue {
        .object(JSONObject(headers.map { ($0.name, JSONValue.string($0.value)) }))
    }

    // MARK: JSON, as the live link carries rules

    /// `rules` as a JSON array of rule objects (the rules file's keys), which ``rules(json:)`` reads back.
    package static func json(_ rules: [Rule]) -> String {
        JSONValue.array(rules.map { .object(fields($0)) }).compactText()
    }

    /// The rules in `text`, a JSON array of rule objects, checked as a rules file is.
    package static func rules(json text: String) throws(RuleFieldError) -> [Rule] {
        guard text.utf8.count <= maxBytes else { throw RuleFieldError("more than \(Quantity.bytes(maxBytes)) of rules") }
        guard let value = JSONParser.parse(Data(text.utf8), matchingDecoder: true) else {
            throw RuleFieldError("not a JSON array of rules")
        }
        guard case .array(let list) = value else { throw RuleFieldError("not a JSON array of rules") }
        return try rules(list)
    }
}

extension JSONValue {
    /// A string's text; nil for any other value (a number is never read as a string).
    fileprivate var text: String? { if case .string(let text) = self { text } else { nil } }
    fileprivate var flag: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    /// A whole number written as one (`3`, not `3.0` or `3e0`), as TOML's integers are.
    fileprivate var whole: Int? { if case .number(let number) = self { Int(number.text) } else { nil } }
    /// Any number, whole or not.
    fileprivate var real: Double? { if case .number(let number) = self { Double(number.text) } else { nil } }
}

extension Duration {
    /// Whole milliseconds, as the rules' fields write delays.
    package var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

/// Header names and values a request or response can carry (swift-http-types' rules).
enum HTTPHeaderCheck {
    static func valid(name: String, value: String) -> Bool {
        guard !name.isEmpty, name.count <= 200, HTTPField.Name(name) != nil else { return false }
        // By scalar: "\r\n" is one Character, which equals neither "\r" nor "\n".
        return !value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
    }
}
