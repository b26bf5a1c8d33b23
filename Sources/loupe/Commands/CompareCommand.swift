import ArgumentParser
import Foundation
import Loupe
import LoupeBoard
import LoupeCompare
import LoupeQuery
import LoupeTrace

/// `loupe compare A [B] [--a EXPR] [--b EXPR] [--baseline A1 A2] [--latency 10%] [--error-rate 1pt] [--json |
/// --format table|markdown|junit]`: two recordings compared per operation and host, exit 1 on a regression.
struct CompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare", abstract: "Compare two recordings per operation: what regressed, improved, appeared or went.",
        discussion: """
            A and B are stores, HAR files or cassettes; with one source, --a and --b pick two
            sets of its exchanges. Per operation and host: count, error rate, p50/p95/p99 with
            99 % intervals, retries and breaker refusals per exchange, response sizes, and the
            JSON response shape learned from all of A's responses. A change is called only when
            it is significant and larger than its threshold (plus the noise two baseline runs
            show, with --baseline). Exit 1 when anything regressed. Documentation/Compare.md
            has the details.
            """)

    @Argument(help: ArgumentHelp("The baseline: a trace store, HAR file or cassette.", valueName: "A"))
    var sourceA: String

    @Argument(help: ArgumentHelp("The recording compared with it (default: A itself, with --a and --b).", valueName: "B"))
    var sourceB: String?

    @Option(help: "Only exchanges matching EXPR, on both sides.")
    var filter: String?

    @Option(name: .customLong("a"), help: ArgumentHelp("Only A's exchanges matching EXPR.", valueName: "EXPR"))
    var filterA: String?

    @Option(name: .customLong("b"), help: ArgumentHelp("Only B's exchanges matching EXPR.", valueName: "EXPR"))
    var filterB: String?

    @Option(parsing: .upToNextOption, help: ArgumentHelp(
        "Two runs of the baseline: what differs between them is noise, added to each threshold.", valueName: "A1 A2"))
    var baseline: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Smallest latency change called, as a percentage from 0% to 1000% (default: 10%).", valueName: "PERCENT"),
        transform: CompareCommand.parseLatency)
    var latency: Double = 0.10

    @Option(name: .customLong("error-rate"), parsing: .unconditional, help: ArgumentHelp(
        "Smallest error-rate change called, in percentage points from 0pt to 100pt (default: 1pt).", valueName: "POINTS"),
        transform: CompareCommand.parseErrorRate)
    var errorRate: Double = 1

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The chance of calling a change that is not there, over the whole comparison, from 1e-9 to 0.5 (default: 0.01).",
        valueName: "P"), transform: CompareCommand.parseAlpha)
    var alpha: Double = 0.01

    @Option(help: ArgumentHelp("table, markdown (a pull request comment) or junit (one test case per operation).",
                               valueName: "table|markdown|junit"))
    var format: String = "table"

    @Flag(help: "Print JSON.")
    var json = false

    static func parseLatency(_ text: String) throws(ArgumentValueError) -> Double {
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        return try NumberArgument.decimal(number, in: 0...1000, expected: "a percentage from 0% to 1000%") / 100
    }

    static func parseErrorRate(_ text: String) throws(ArgumentValueError) -> Double {
        let number = text.hasSuffix("pt") ? String(text.dropLast(2)) : text
        return try NumberArgument.decimal(number, in: 0...100, expected: "percentage points from 0pt to 100pt")
    }

    static func parseAlpha(_ text: String) throws(ArgumentValueError) -> Double {
        try NumberArgument.decimal(text, in: CompareThresholds.alphaRange, expected: "a probability from 1e-9 to 0.5")
    }

    func validate() throws {
        guard ["table", "markdown", "junit"].contains(format) else {
            throw ValidationError("--format: expected table, markdown or junit, got '\(TerminalText.line(format))'")
        }
        if json, format != "table" { throw ValidationError("--json and --format \(format) are two outputs: choose one") }
        guard baseline.isEmpty || baseline.count == 2 else {
            throw ValidationError("--baseline takes two recordings of the same baseline, got \(baseline.count)")
        }
        if sourceB == nil, filterA == nil, filterB == nil {
            throw ValidationError("give B, or --a and --b to compare two sets of A's exchanges")
        }
    }

    func run() async throws {
        let thresholds = CompareThresholds(latency: latency, errorRatePoints: errorRate, alpha: alpha)
        let comparison = try Self.compare(sourceA, sourceB, filter: filter, filterA: filterA, filterB: filterB,
                                          baseline: baseline, thresholds: thresholds)
        if json {
            print(try Formatting.json(CompareJSON(comparison)))
        } else {
            switch format {
            case "markdown": print(ComparisonDocuments.markdown(comparison))
            case "junit": print(ComparisonDocuments.junit(comparison))
            default:
                print(ComparisonTable.summary(comparison))
                for (kind, groups) in [(GroupComparison.Kind.operation, comparison.operations), (.host, comparison.hosts)]
                where !groups.isEmpty {
                    print("")
                    ComparisonTable.lines(kind, groups).forEach { print($0) }
                }
            }
        }
        try StandardStreams.flushOutput()
        if comparison.hasRegression { throw ExitCode(1) }
    }

    /// The comparison `loupe compare` prints (and `loupe mcp`'s `compare` tool answers): B defaults to A, and
    /// `baseline` is empty or two recordings.
    static func compare(_ sourceA: String, _ sourceB: String?, filter: String?, filterA: String?, filterB: String?,
                        baseline: [String], thresholds: CompareThresholds) throws -> Comparison {
        // One clock for every filter, so `--a '~until 1h' --b '~since 1h'` meet at one instant.
        let now = Date()
        let common = try FilterOption.parse(filter, now: now)
        let onlyA = try FilterOption.parse(filterA, now: now)
        let onlyB = try FilterOption.parse(filterB, now: now)
        let a = try read(sourceA, filter: common, and: onlyA)
        let b = try read(sourceB ?? sourceA, filter: common, and: onlyB)
        var noise: (SideFigures, SideFigures)?
        if baseline.count == 2 {
            noise = (try read(baseline[0], filter: common, and: onlyA),
                     try read(baseline[1], filter: common, and: onlyA))
        }
        return Comparison(a: a, b: b, thresholds: thresholds, baseline: noise)
    }

    /// One side: a source opened as `loupe serve` opens it (a HAR file read into a temporary store, anything else a
    /// store or cassette, read-only), its exchanges matching both filters.
    static func read(_ source: String, filter: TraceFilter?, and other: TraceFilter?) throws -> SideFigures {
        // A store (or cassette) is read where it is; a HAR file goes into a temporary store first, as `loupe serve`
        // reads one, removed once read.
        let path = StoreAccess.path(source)
        let spool = ReplaySource.isHARFile(path)
            ? try ServeSpool.load(har: InputFile.regular(path, role: "HAR file"), redaction: RedactionPolicy(), filter: nil) : nil
        defer { spool?.remove() }
        let store = try spool?.store ?? StoreAccess.openForReading(source).0
        let combined: TraceFilter? = switch (filter, other) {
        case (let one?, let two?): .and(one, two)
        case (let one?, nil), (nil, let one?): one
        case (nil, nil): nil
        }
        do {
            return try SideFigures.read(store, filter: combined)
        } catch {
            throw StoreAccess.readFailure(error)
        }
    }
}

/// The JSON shape of `loupe compare --json` (stable names; durations in ms, rates 0…1, changes as fractions).
struct CompareJSON: Encodable {
    struct Side: Encodable {
        var count, errors, retries, refusals: Int
        var errorRate, retriesPerExchange, refusalsPerExchange: Double
        var p50Ms, p95Ms, p99Ms: Double?
        var meanResponseBytes: Double?
        /// Exchanges by status ("0" is none: a transport error or a refusal; "-1" every code past the 32 kept).
        var statuses: [String: Int]
        var jsonResponses: Int
        var examples: [String]

        init(_ figures: GroupFigures) {
            count = figures.count
            errors = figures.errors
            retries = figures.retries
            refusals = figures.refusals
            errorRate = figures.errorRate
            retriesPerExchange = figures.retriesPerExchange
            refusalsPerExchange = figures.refusalsPerExchange
            let percentiles = figures.latency.percentiles([50, 95, 99]).map(Formatting.jsonMilliseconds)
            (p50Ms, p95Ms, p99Ms) = (percentiles[0], percentiles[1], percentiles[2])
            meanResponseBytes = figures.meanResponseBytes
            statuses = Dictionary(uniqueKeysWithValues: figures.statuses.map { (String($0.key), $0.value) })
            jsonResponses = figures.shape.documents
            examples = figures.examples.ids.map(\.uuidString)
        }
    }

    struct Percentile: Encodable {
        var percent: Double
        var aMs, aLowMs, aHighMs, bMs, bLowMs, bHighMs: Double?
        var change: Double?
        var significant: Bool

        init(_ percentile: GroupComparison.Percentile) {
            percent = percentile.percent
            aMs = Formatting.jsonMilliseconds(percentile.a?.estimate)
            aLowMs = Formatting.jsonMilliseconds(percentile.a?.lower)
            aHighMs = Formatting.jsonMilliseconds(percentile.a?.upper)
            bMs = Formatting.jsonMilliseconds(percentile.b?.estimate)
            bLowMs = Formatting.jsonMilliseconds(percentile.b?.lower)
            bHighMs = Formatting.jsonMilliseconds(percentile.b?.upper)
            change = percentile.change.flatMap { $0.isFinite ? $0 : nil }
            significant = percentile.isSignificant
        }
    }

    struct Drift: Encodable {
        var kind, path: String
        var before, after: [String]
    }

    struct Group: Encodable {
        var kind, name, verdict: String
        var reasons: [String]
        var a, b: Side?
        var latency: [Percentile]
        var rankTestP: Double?
        var errorTestP: Double?
        var shape: [Drift]

        init(_ group: GroupComparison) {
            kind = group.kind.rawValue
            name = group.name
            verdict = group.verdict.rawValue
            reasons = group.reasons
            a = group.a.map(Side.init)
            b = group.b.map(Side.init)
            latency = group.percentiles.map(Percentile.init)
            rankTestP = group.rankTest?.pValue
            errorTestP = group.errorTest?.pValue
            shape = group.drifts.map { Drift(kind: $0.kind.rawValue, path: $0.path, before: $0.before.map(\.name), after: $0.after.map(\.name)) }
        }
    }

    var regressed: Bool
    var totalA, totalB: Int
    var latencyThreshold, errorRateThresholdPoints, alpha: Double
    var noiseFromBaseline: Bool
    var operations: [Group]
    var hosts: [Group]
    /// Set only by `loupe mcp`'s `compare` tool when it listed fewer groups than there are: what it left out.
    var cut: String?

    init(_ comparison: Comparison) {
        regressed = comparison.hasRegression
        totalA = comparison.totalA
        totalB = comparison.totalB
        latencyThreshold = comparison.thresholds.latency
        errorRateThresholdPoints = comparison.thresholds.errorRatePoints
        alpha = comparison.thresholds.alpha
        noiseFromBaseline = comparison.learnedNoise
        operations = comparison.operations.map(Group.init)
        hosts = comparison.hosts.map(Group.init)
    }
}
