import Foundation
import Loupe
import LoupeConfig
import LoupeRules
import LoupeTrace
import TOMLKit

/// Rules as TOML: the rules file (`LOUPE_RULES`), `loupe rules check` and what the TUI opens in `$EDITOR`. Each rule
/// is checked by the same reader as the live link's JSON (``RuleFields``). Schema in Documentation/Rules.md.
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
    public static let maxRules = RuleFields.maxRules
    public static let maxNameLength = RuleFields.maxNameLength
    /// A rules file is read whole; past this it is refused.
    public static let maxBytes = RuleFields.maxBytes

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
        // Checked as the link's JSON is, by the one reader of a rule's fields; only the lines are the file's own.
        do {
            return try RuleFields.rules(list.map(fields))
        } catch {
            guard let index = error.rule else { throw ConfigFileError(error.reason) }
            let line = index < headers.count ? headers[index] : nil
            let end = index + 1 < headers.count ? headers[index + 1] : Int.max
            let keyLine = error.key.flatMap { key in line.flatMap { keyLineIn(text, key: key, from: $0, before: end) } } ?? line
            throw ConfigFileError(line: keyLine, error.reason)
        }
    }

    /// The rules in `text`; see ``parse(_:)-(Data)``.
    public static func parse(_ text: String) throws(ConfigFileError) -> [Rule] {
        try parse(Data(text.utf8))
    }

    /// A TOML value as the fields ``RuleFields`` reads: numbers keep their text (an integer stays whole), and what
    /// JSON has no word for (dates and times, `inf`, `nan`) becomes `null`, which no key of a rule takes.
    static func fields(_ value: any TOMLValueConvertible) -> JSONValue {
        if let text = value.string { return .string(text) }
        if let flag = value.bool { return .bool(flag) }
        if let number = value.int { return .number(JSONNumber(String(number))) }
        if let number = value.double { return number.isFinite ? .number(JSONNumber("\(number)")) : .null }
        if let list = value.array { return .array(list.map(fields)) }
        if let table = value.table { return .object(JSONObject(table.keys.map { ($0, table[$0].map(fields) ?? .null) })) }
        return .null
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
