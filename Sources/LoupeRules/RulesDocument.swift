import Foundation
import HTTPTypes
import Loupe
import LoupeConfig
import LoupeTrace
import TOMLKit

/// Rules as TOML: the rules file (`LOUPE_RULES`), what the TUI opens in `$EDITOR`, and what the live link
/// carries, so there is one document for rules wherever they are written. Schema in Documentation/Rules.md.
///
/// ```toml
/// [[rule]]
/// name = "getUser down"
/// match = "~op getUser"
/// probability = 0.3          # optional: 0…1 (default 1)
/// times = 10                 # optional: at most this many hits
/// until = "2026-11-27T04:00:00Z"  # optional
/// enabled = true             # optional
/// fault = { status = 503 }
/// ```
public enum RulesDocument {
    /// The most rules one document holds, and the longest text of a name: far above real use, bounding memory.
    public static let maxRules = 1000
    public static let maxNameLength = 100
    /// A rules file is read whole; past this it is refused.
    public static let maxBytes = 1024 * 1024

    /// The rules in `data`, or the first problem and its line.
    public static func parse(_ data: Data) throws(ConfigFileError) -> [Rule] {
        let (table, text) = try TOMLDocument.parse(data)
        let headers = ruleHeaderLines(text)
        for key in table.keys where key != "rule" {
            throw ConfigFileError(line: TOMLLines(text).line(ofSection: key), "unknown key '\(key.prefix(40))'; a rules file holds [[rule]] tables")
        }
        guard let value = table["rule"] else { return [] }
        guard let list = value.array else { throw ConfigFileError(line: headers.first, "'rule' must be [[rule]] tables") }
        guard list.count <= maxRules else { throw ConfigFileError("more than \(maxRules) rules") }
        var rules: [Rule] = []
        var names: Set<String> = []
        for (index, element) in list.enumerated() {
            let line = index < headers.count ? headers[index] : nil
            guard let entry = element.table else { throw ConfigFileError(line: line, "each rule must be a [[rule]] table") }
            let end = index + 1 < headers.count ? headers[index + 1] : Int.max
            let keyLine = { (key: String) in line.flatMap { keyLineIn(text, key: key, from: $0, before: end) } ?? line }
            let rule = try self.rule(entry, line: line, keyLine: keyLine, number: index + 1)
            guard names.insert(rule.name).inserted else {
                throw ConfigFileError(line: keyLine("name"), "two rules are named '\(rule.name)'")
            }
            rules.append(rule)
        }
        return rules
    }

    /// The rules in `text`; see ``parse(_:)-(Data)``.
    public static func parse(_ text: String) throws(ConfigFileError) -> [Rule] {
        try parse(Data(text.utf8))
    }

    static let ruleKeys: Set<String> = ["name", "match", "enabled", "times", "until", "probability",
                                        "mock", "fault", "rewrite", "breakpoint", "breaker"]
    static let actions = ["mock", "fault", "rewrite", "breakpoint", "breaker"]

    /// `keyLine(key)` is the line of `key` inside this rule's table (the `[[rule]]` line when it is not found):
    /// a mistake is reported on the line that holds it.
    private static func rule(_ table: TOMLTable, line: Int?, keyLine: (String) -> Int?, number: Int) throws(ConfigFileError) -> Rule {
        let label = "rule \(number)"
        for key in table.keys where !ruleKeys.contains(key) {
            throw ConfigFileError(line: keyLine(key), "\(label): unknown key '\(key.prefix(40))'")
        }
        guard let name = table["name"]?.string, !name.isEmpty, name.count <= maxNameLength,
              !name.contains(where: { $0.isNewline || $0 == "\0" }) else {
            throw ConfigFileError(line: keyLine("name"), "\(label): needs a name (1 to \(maxNameLength) characters on one line)")
        }
        let named = "rule '\(name)'"
        let match = table["match"]?.string ?? ""
        var limits = RuleLimits()
        if let value = table["enabled"] {
            guard let enabled = value.bool else { throw ConfigFileError(line: keyLine("enabled"), "\(named): enabled must be true or false") }
            limits.enabled = enabled
        }
        if let value = table["times"] {
            guard let times = value.int, (1...1_000_000_000).contains(times) else {
                throw ConfigFileError(line: keyLine("times"), "\(named): times must be a whole number from 1 to 1000000000")
            }
            limits.times = times
        }
        if let value = table["until"] {
            guard let text = value.string, let date = ISO8601DateFormatter().date(from: text) else {
                throw ConfigFileError(line: keyLine("until"), "\(named): until must be a time like \"2026-11-27T04:00:00Z\"")
            }
            limits.until = date
        }
        if let value = table["probability"] {
            guard let probability = value.double ?? value.int.map(Double.init), (0...1).contains(probability) else {
                throw ConfigFileError(line: keyLine("probability"), "\(named): probability must be a number from 0 to 1")
            }
            limits.probability = probability
        }
        let present = actions.filter { table[$0] != nil }
        guard present.count == 1, let word = present.first, let body = table[word]?.table else {
            throw ConfigFileError(line: line, "\(named): needs exactly one action table: mock, fault, rewrite, breakpoint or breaker")
        }
        let action = try self.action(word, body, named: named, line: keyLine(word))
        if case .breaker = action {} else if match.isEmpty {
            throw ConfigFileError(line: line, "\(named): needs match, a filter such as \"~op getUser\" (\"~u .\" for every request)")
        }
        let rule: Rule
        do {
            rule = try Rule(name: name, match: match.isEmpty ? "~u ." : match, action: action, limits: limits)
        } catch {
            throw ConfigFileError(line: keyLine("match"), "\(named): match: \(error)")
        }
        // A term about the response or the recorded exchange is never true of a request about to be sent: such a
        // rule could never act, which a file must not be able to say without a word.
        if case .breaker = action {} else if let term = responseTerm(in: rule.filter) {
            throw ConfigFileError(line: keyLine("match"), "\(named): match: \(term) is about the response or the recorded "
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
        case .responseBody: "~bs"
        case .method, .host, .url, .header, .body, .requestBody, .operation, .attempts: nil
        case .not(let inner): responseTerm(in: inner)
        case .and(let left, let right), .or(let left, let right): responseTerm(in: left) ?? responseTerm(in: right)
        }
    }

    /// The 1-based line of `key = …` (or a `[rule.key]` table) among lines `start + 1 ..< end` of `text`.
    static func keyLineIn(_ text: String, key: String, from start: Int, before end: Int) -> Int? {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where index + 1 > start && index + 1 < end {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[rule.\(key)]") || trimmed.hasPrefix("[ rule.\(key) ]") { return index + 1 }
            guard trimmed.hasPrefix(key) else { continue }
            let rest = trimmed.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }
            if rest.first == "=" { return index + 1 }
        }
        return nil
    }

    private static func action(_ word: String, _ table: TOMLTable, named: String, line: Int?) throws(ConfigFileError) -> RuleAction {
        func fail(_ text: String) -> ConfigFileError { ConfigFileError(line: line, "\(named): \(word): \(text)") }
        func allow(_ keys: Set<String>) throws(ConfigFileError) {
            for key in table.keys where !keys.contains(key) { throw fail("unknown key '\(key.prefix(40))'") }
        }
        func milliseconds(_ key: String) throws(ConfigFileError) -> Duration? {
            guard let value = table[key] else { return nil }
            guard let ms = value.int, (0...3_600_000).contains(ms) else { throw fail("\(key) must be 0 to 3600000 (milliseconds)") }
            return .milliseconds(ms)
        }
        func status(_ key: String) throws(ConfigFileError) -> Int? {
            guard let value = table[key] else { return nil }
            guard let code = value.int, (100...599).contains(code) else { throw fail("\(key) must be an HTTP status from 100 to 599") }
            return code
        }
        func headers(_ key: String) throws(ConfigFileError) -> [TraceHeader] {
            guard let value = table[key] else { return [] }
            guard let fields = value.table else { throw fail("\(key) must be a table like { \"content-type\" = \"text/plain\" }") }
            var result: [TraceHeader] = []
            for name in fields.keys.sorted() {
                guard let text = fields[name]?.string, HTTPHeaderCheck.valid(name: name, value: text) else {
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
            if let text = table["body"]?.string { mock.body = Data(text.utf8) }
            if let text = table["body_base64"]?.string {
                guard let data = Data(base64Encoded: text) else { throw fail("body_base64 is not base64") }
                mock.body = data
            }
            if let from = table["from"]?.int { mock.recordedFrom = from }
            return .mock(mock)
        case "fault":
            try allow(["status", "reset", "connect_failed", "timeout", "delay_ms", "response_delay_ms", "cut_after_bytes"])
            var faults: [TransportFault] = []
            if let code = try status("status") { faults.append(.status(code)) }
            if table["reset"]?.bool == true { faults.append(.connectionReset) }
            if table["connect_failed"]?.bool == true { faults.append(.connectFailed) }
            if table["timeout"]?.bool == true { faults.append(.timeout) }
            if let delay = try milliseconds("delay_ms") { faults.append(.latency(delay)) }
            if let delay = try milliseconds("response_delay_ms") { faults.append(.responseDelay(delay)) }
            if let value = table["cut_after_bytes"] {
                guard let bytes = value.int, (0...Int(Int32.max)).contains(bytes) else { throw fail("cut_after_bytes must be 0 to 2147483647") }
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
                guard let list = value.array else { throw fail("remove_headers must be a list of names") }
                for element in list {
                    guard let name = element.string, HTTPHeaderCheck.valid(name: name, value: "") else { throw fail("remove_headers must be a list of names") }
                    rewrite.removeHeaders.append(name)
                }
            }
            if let value = table["base_url"] {
                guard let text = value.string, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                      scheme == "http" || scheme == "https", let host = url.host,
                      RequestTargetCheck.problem(inAuthority: url.port.map { "\(host):\($0)" } ?? host) == nil else {
                    throw fail("base_url must be an http(s) URL with a host and a port up to 65535")
                }
                rewrite.baseURL = url
            }
            return .rewrite(rewrite)
        case "breakpoint":
            try allow(["request", "response"])
            let breakpoint = RuleBreakpoint(request: table["request"]?.bool ?? true, response: table["response"]?.bool ?? false)
            guard breakpoint.request || breakpoint.response else { throw fail("holds nothing: set request or response to true") }
            return .breakpoint(breakpoint)
        default:
            try allow(["key", "force"])
            guard let key = table["key"]?.string, !key.isEmpty, key.count <= 500 else { throw fail("needs key, the circuit key (screen 3 shows them)") }
            guard let text = table["force"]?.string, let override = BreakerOverride(rawValue: text) else {
                throw fail("force must be \"open\", \"closed\" or \"release\"")
            }
            return .breaker(key: key, override: override)
        }
    }

    /// The 1-based lines of the `[[rule]]` headers, in order (TOMLKit keeps no positions for values).
    static func ruleHeaderLines(_ text: String) -> [Int] {
        var lines: [Int] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[[") {
                let name = trimmed.dropFirst(2).prefix { $0 != "]" }.trimmingCharacters(in: .whitespaces)
                if name == "rule" || name == "\"rule\"" { lines.append(index + 1) }
            }
        }
        return lines
    }

    // MARK: Writing

    /// `rules` as a document that ``parse(_:)-(Data)`` reads back as the same rules.
    public static func text(_ rules: [Rule]) -> String {
        rules.map(text).joined(separator: "\n")
    }

    static func text(_ rule: Rule) -> String {
        var lines = ["[[rule]]", "name = \(quote(rule.name))"]
        if case .breaker = rule.action {} else { lines.append("match = \(quote(rule.match))") }
        if !rule.limits.enabled { lines.append("enabled = false") }
        if let times = rule.limits.times { lines.append("times = \(times)") }
        if let until = rule.limits.until { lines.append("until = \(quote(ISO8601DateFormatter().string(from: until)))") }
        if rule.limits.probability < 1 { lines.append("probability = \(rule.limits.probability)") }
        switch rule.action {
        case .mock(let mock):
            var parts = ["status = \(mock.status)"]
            if !mock.headers.isEmpty { parts.append("headers = \(inline(mock.headers))") }
            if !mock.body.isEmpty {
                if let text = String(data: mock.body, encoding: .utf8) { parts.append("body = \(quote(text))") }
                else { parts.append("body_base64 = \(quote(mock.body.base64EncodedString()))") }
            }
            if let from = mock.recordedFrom { parts.append("from = \(from)") }
            lines.append("mock = { \(parts.joined(separator: ", ")) }")
        case .fault(let fault):
            let part: String = switch fault {
            case .status(let code): "status = \(code)"
            case .connectionReset: "reset = true"
            case .connectFailed: "connect_failed = true"
            case .timeout: "timeout = true"
            case .latency(let delay): "delay_ms = \(delay.milliseconds)"
            case .responseDelay(let delay): "response_delay_ms = \(delay.milliseconds)"
            case .cutBody(let bytes): "cut_after_bytes = \(bytes)"
            }
            lines.append("fault = { \(part) }")
        case .rewrite(let rewrite):
            var parts: [String] = []
            if !rewrite.setHeaders.isEmpty { parts.append("set_headers = \(inline(rewrite.setHeaders))") }
            if !rewrite.removeHeaders.isEmpty { parts.append("remove_headers = [\(rewrite.removeHeaders.map(quote).joined(separator: ", "))]") }
            if let url = rewrite.baseURL { parts.append("base_url = \(quote(url.absoluteString))") }
            lines.append("rewrite = { \(parts.joined(separator: ", ")) }")
        case .breakpoint(let breakpoint):
            lines.append("breakpoint = { request = \(breakpoint.request), response = \(breakpoint.response) }")
        case .breaker(let key, let override):
            lines.append("breaker = { key = \(quote(key)), force = \(quote(override.rawValue)) }")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func inline(_ headers: [TraceHeader]) -> String {
        "{ " + headers.map { "\(quote($0.name)) = \(quote($0.value))" }.joined(separator: ", ") + " }"
    }

    /// A TOML basic string.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { out += String(format: "\\u%04X", scalar.value) }
                else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

/// Header names and values a request or response can carry (swift-http-types' rules).
enum HTTPHeaderCheck {
    static func valid(name: String, value: String) -> Bool {
        guard !name.isEmpty, name.count <= 200, HTTPField.Name(name) != nil else { return false }
        return !value.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
    }
}
