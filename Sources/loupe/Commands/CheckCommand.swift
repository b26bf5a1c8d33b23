import ArgumentParser
import Foundation
import Loupe
import LoupeContract
import LoupeFormats
import LoupeQuery
import LoupeTrace

/// `loupe check [STORE|HAR] --openapi FILE`: recorded exchanges checked against an OpenAPI document, as a drift
/// report per operation; exit 1 when anything drifts (of the kinds `--fail-on` names).
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Check recorded exchanges against an OpenAPI document.",
        discussion: """
            Each exchange is matched to its operation by method and path template under the servers' base path, \
            then checked: status documented (or default), response content type declared, the JSON body against \
            its schema, the request body and the path and query parameters. Exits 1 when an exchange drifts, 2 on \
            bad input. Kinds for --fail-on: \(ContractFinding.kinds.joined(separator: ", ")), or one with its \
            keyword (response-body.type, parameter.required).

            \(FilterOption.help)
            """)

    @Argument(help: "The trace store or a HAR file (default: $LOUPE_STORE or the XDG state store).")
    var store: String?

    @Option(help: ArgumentHelp("The OpenAPI 3.0/3.1 document, YAML or JSON (default: $LOUPE_OPENAPI).", valueName: "FILE"))
    var openapi: String?

    @Option(help: "Only exchanges matching EXPR (stores only), e.g. '~d api.example.com'.")
    var filter: String?

    @Flag(help: "Print JSON ({checked, drifting, unmatched, operations, unmatchedRequests}).")
    var json = false

    @Option(help: ArgumentHelp("text (default), markdown or junit.", valueName: "FORMAT"))
    var format: String = "text"

    @Option(help: ArgumentHelp("Exit 1 only for these kinds of drift, comma-separated.", valueName: "KINDS"))
    var failOn: String?

    @Flag(help: "Also list each exchange that drifts or matches no operation (the first 10000).")
    var each = false

    /// `--each` lists at most this many exchanges: the report itself already counts them all.
    static let maximumListed = 10_000

    func run() async throws {
        guard ["text", "markdown", "junit"].contains(format) else {
            throw CommandFailure.badInput("--format: expected text, markdown or junit, got \(TerminalText.line(format))")
        }
        let selectors = try failOn.map(Self.kinds)
        let contract = try Self.contract(openapi ?? ProcessInfo.processInfo.environment["LOUPE_OPENAPI"])
        let filter = try FilterOption.parse(self.filter)
        var report = DriftReport(contract: contract)
        var listed: [CheckJSON.Exchange] = []
        func add(_ exchange: TraceExchange, _ reference: String) {
            let verdict = contract.check(exchange)
            report.add(verdict, exchange: exchange, reference: reference)
            if each, verdict.drifts || verdict.operation == nil, listed.count < Self.maximumListed {
                listed.append(CheckJSON.Exchange(exchange: reference, operation: verdict.operation, unmatched: verdict.unmatchedReason,
                                                 findings: verdict.findings.map { .init(kind: $0.kind, message: $0.message) }))
            }
        }
        let path = StoreAccess.path(store)
        if store != nil, ReplaySource.isHARFile(path) {
            guard filter == nil else { throw CommandFailure.badInput("--filter works on a store, not a HAR file") }
            try InputFile.regular(path, role: "HAR file")
            var index = 0
            do {
                try HARImporter().forEachExchange(contentsOf: URL(fileURLWithPath: path)) { exchange in
                    index += 1
                    add(exchange, "#\(index)")
                }
            } catch {
                throw CommandFailure.badInput("\(path): \(error)")
            }
        } else {
            let (store, _) = try StoreAccess.openForReading(store)
            try Self.forEachExchange(in: store, matching: filter, add)
        }
        if json {
            var shape = CheckJSON(report)
            if each { shape.exchanges = listed }
            print(try Formatting.json(shape))
        } else {
            switch format {
            case "markdown": Self.markdown(report).forEach { print($0) }
            case "junit": Self.junit(report).forEach { print($0) }
            default: Self.text(report).forEach { print($0) }
            }
            if each, format == "text", !listed.isEmpty {
                print("")
                print("EXCHANGES")
                for entry in listed {
                    let name = TerminalText.line(entry.operation ?? "—")
                    if let reason = entry.unmatched { print("\(entry.exchange)  \(name)  \(reason)") }
                    for finding in entry.findings {
                        print("\(entry.exchange)  \(name)  \(finding.kind)  \(TerminalText.line(finding.message))")
                    }
                }
            }
        }
        if report.drifts(ofKinds: selectors) {
            throw CommandFailure.failed("\(Quantity.count(report.drifting, "exchange")) drift from the contract")
        }
    }

    /// Each exchange of `store` matching `filter`, oldest first, with the reference the report names it by (`#N`, or
    /// its id when it has no sequence): what `loupe check` and `loupe mcp`'s `check_contract` both read.
    static func forEachExchange(in store: SQLiteTraceStore, matching filter: TraceFilter?,
                                _ body: (TraceExchange, String) -> Void) throws {
        do {
            try store.forEachBatch(matching: filter) { batch in
                for exchange in batch {
                    body(exchange, exchange.sequence.map { "#\($0)" } ?? exchange.id.uuidString)
                }
            }
        } catch {
            throw StoreAccess.readFailure(error)
        }
    }

    /// The document at `path` compiled, or one `loupe:` line.
    static func contract(_ path: String?) throws -> Contract {
        guard let path, !path.isEmpty else {
            throw CommandFailure.badInput("--openapi: give the OpenAPI document (or set LOUPE_OPENAPI)")
        }
        let expanded = StoreAccess.expandTilde(path)
        let data = try InputFile.contents(expanded, role: "OpenAPI document")
        do {
            return try Contract(data: data)
        } catch {
            throw CommandFailure.badInput("\(expanded): \(error.description)")
        }
    }

    /// `--fail-on status,response-body.type`: each a kind, or a kind and a keyword.
    static func kinds(_ text: String) throws -> [String] {
        let kinds = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !kinds.isEmpty else { throw CommandFailure.badInput("--fail-on: expected kinds of drift, got nothing") }
        for kind in kinds {
            let head = kind.split(separator: ".", maxSplits: 1).first.map(String.init) ?? kind
            guard ContractFinding.kinds.contains(head) else {
                throw CommandFailure.badInput("--fail-on: expected \(ContractFinding.kinds.joined(separator: ", ")), got \(TerminalText.line(kind))")
            }
        }
        return kinds
    }

    // MARK: - Rendering

    static func summary(_ report: DriftReport) -> String {
        "\(Quantity.count(report.checked, "exchange")) checked, \(report.drifting) drift, \(report.unmatchedCount) match no operation"
    }

    /// Operations seen or drifting, each with its kinds of drift; then the unmatched requests.
    static func text(_ report: DriftReport) -> [String] {
        var lines = [summary(report)]
        let seen = report.operations.filter { $0.checked > 0 }
        if !seen.isEmpty {
            lines.append("")
            let width = max(9, seen.map { TerminalText.line($0.name).count }.max() ?? 0)
            lines.append(Formatting.pad("OPERATION", width) + "  CHECKED  DRIFTING")
            for operation in seen {
                lines.append(Formatting.pad(TerminalText.line(operation.name), width)
                             + "  " + String(repeating: " ", count: max(0, 7 - String(operation.checked).count)) + String(operation.checked)
                             + "  " + String(repeating: " ", count: max(0, 8 - String(operation.drifting).count)) + String(operation.drifting))
                for kind in operation.kinds {
                    lines.append("  \(kind.kind) ×\(kind.count)  first \(Formatting.time(kind.firstSeen))  last \(Formatting.time(kind.lastSeen))  "
                                 + "e.g. \(kind.example): \(TerminalText.line(kind.message))")
                }
            }
        }
        if !report.unmatched.isEmpty {
            lines.append("")
            lines.append("MATCHING NO OPERATION")
            for unmatched in report.unmatched {
                lines.append("  \(TerminalText.line(unmatched.request)) ×\(unmatched.count)  \(unmatched.reason)  e.g. \(unmatched.example)")
            }
            if report.unmatchedOthers > 0 { lines.append("  … and \(Quantity.count(report.unmatchedOthers, "more exchange"))") }
        }
        return lines
    }

    static func markdown(_ report: DriftReport) -> [String] {
        func cell(_ text: String) -> String {
            TerminalText.line(text).replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "'")
        }
        var lines = ["## API contract", "", summary(report), "",
                     "| Operation | Checked | Drifting | Drift | Count | First seen | Last seen | Example |",
                     "| --- | ---: | ---: | --- | ---: | --- | --- | --- |"]
        for operation in report.operations where operation.checked > 0 {
            if operation.kinds.isEmpty {
                lines.append("| \(cell(operation.name)) | \(operation.checked) | 0 | | | | | |")
            }
            for kind in operation.kinds {
                lines.append("| \(cell(operation.name)) | \(operation.checked) | \(operation.drifting) | \(kind.kind) | \(kind.count) | "
                             + "\(Formatting.time(kind.firstSeen)) | \(Formatting.time(kind.lastSeen)) | \(kind.example) `\(cell(kind.message))` |")
            }
        }
        if !report.unmatched.isEmpty {
            lines += ["", "| Matching no operation | Count | Why | Example |", "| --- | ---: | --- | --- |"]
            for unmatched in report.unmatched {
                lines.append("| `\(cell(unmatched.request))` | \(unmatched.count) | \(unmatched.reason) | \(unmatched.example) |")
            }
        }
        return lines
    }

    /// One test case per operation seen, failing when it drifts; unmatched requests as skipped cases.
    static func junit(_ report: DriftReport) -> [String] {
        func xml(_ text: String) -> String { XMLText.escaped(text) }
        let seen = report.operations.filter { $0.checked > 0 }
        let failures = seen.filter { $0.drifting > 0 }.count
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                     "<testsuite name=\"loupe check\" tests=\"\(seen.count + report.unmatched.count)\" failures=\"\(failures)\" skipped=\"\(report.unmatched.count)\">"]
        for operation in seen {
            let name = xml(operation.name)
            guard operation.drifting > 0 else {
                lines.append("  <testcase classname=\"contract\" name=\"\(name)\"/>")
                continue
            }
            lines.append("  <testcase classname=\"contract\" name=\"\(name)\">")
            let message = "\(operation.drifting) of \(operation.checked) exchanges drift"
            let body = operation.kinds.map { "\($0.kind) ×\($0.count), e.g. \($0.example): \($0.message)" }.joined(separator: "\n")
            lines.append("    <failure message=\"\(xml(message))\">\(xml(body))</failure>")
            lines.append("  </testcase>")
        }
        for unmatched in report.unmatched {
            lines.append("  <testcase classname=\"unmatched\" name=\"\(xml(unmatched.request))\"><skipped message=\"\(xml(unmatched.reason)) (×\(unmatched.count))\"/></testcase>")
        }
        lines.append("</testsuite>")
        return lines
    }
}

/// The JSON shape of `loupe check --json` (stable names; times in ISO 8601).
struct CheckJSON: Encodable {
    struct Kind: Encodable {
        var kind: String
        var count: Int
        var firstSeen, lastSeen: String?
        var example: String
        var message: String
    }

    struct Operation: Encodable {
        var operation: String
        var checked, drifting: Int
        var drift: [Kind]
    }

    struct Unmatched: Encodable {
        var request, reason, example: String
        var count: Int
    }

    /// With `--each`: an exchange that drifts or matches no operation.
    struct Exchange: Encodable {
        var exchange: String
        var operation: String?
        var unmatched: String?
        var findings: [Finding]
    }

    struct Finding: Encodable {
        var kind, message: String
    }

    var checked, drifting, unmatched, unmatchedOthers: Int
    var operations: [Operation]
    var unmatchedRequests: [Unmatched]
    var exchanges: [Exchange]?
    /// Set only by `loupe mcp`'s `check_contract` tool when it listed fewer operations or unmatched requests than
    /// there are: what it left out.
    var cut: String?

    init(_ report: DriftReport) {
        checked = report.checked
        drifting = report.drifting
        unmatched = report.unmatchedCount
        unmatchedOthers = report.unmatchedOthers
        operations = report.operations.map { operation in
            Operation(operation: operation.name, checked: operation.checked, drifting: operation.drifting, drift: operation.kinds.map {
                Kind(kind: $0.kind, count: $0.count, firstSeen: Formatting.jsonDate($0.firstSeen), lastSeen: Formatting.jsonDate($0.lastSeen),
                     example: $0.example, message: $0.message)
            })
        }
        unmatchedRequests = report.unmatched.map { Unmatched(request: $0.request, reason: $0.reason, example: $0.example, count: $0.count) }
    }
}
