import Foundation
import GRDB
import Loupe
import LoupeTrace

/// A ``TraceFilter`` as an SQL `WHERE` condition over the `exchange` table.
///
/// Indexed terms become plain SQL the planner can serve from indexes: `~m` `~c` `~op` `~dur` `~att` compare
/// columns, `~e`, `~replay` and a retried `~att` (`>1`, `3`…) repeat the conditions of their partial indexes, `~d` picks from the distinct
/// hosts first, `~cb` looks in the `attempt_circuit` index. Regex terms (`~u` `~h` `~b`) call
/// `loupe_filter_match`, an SQL function registered on the reading connection for one query: it runs the same
/// ``TextPattern`` on the same text ``TraceFilter/matches(_:)`` builds, so ordering and `LIMIT` stay in SQL and
/// any mix of terms (`~c 5xx | ~b secret`) is answered exactly, with no second pass in Swift.
///
/// SQL's NULL (an absent status, an unfinished duration) means "no match", as in memory: a plain `AND`/`OR`
/// of terms already treats NULL as false, and `!` wraps its operand in `IFNULL(…, 0)` before negating.
struct SQLFilter {
    static let functionName = "loupe_filter_match"

    /// The condition, with `?` placeholders; refers to the table as `exchange`.
    private(set) var sql = "1"
    private(set) var values: [(any DatabaseValueConvertible)?] = []
    /// What `loupe_filter_match(i, …)` matches with, by `i`.
    private(set) var patterns: [(kind: PatternKind, pattern: TextPattern)] = []

    enum PatternKind { case url, headers, body, message }

    /// Whether the store has the search index (schema v11): regex terms then read only its candidates.
    private let indexed: Bool

    /// - Parameter indexed: whether the store read has the search index (``SearchIndex``).
    init(_ filter: TraceFilter?, indexed: Bool = false) {
        self.indexed = indexed
        guard let filter else { return }
        sql = clause(filter)
    }

    var arguments: StatementArguments { StatementArguments(values) }

    /// Registers the regex function for the duration of `body` (when the filter has regex terms).
    ///
    /// Should SQLite refuse the statement as too large or too deep (the parser's limits keep parsed filters well
    /// inside SQLite's, but a filter built in code has none), that is thrown as a ``TraceFilterError``: it is the
    /// filter that is at fault, not the store.
    func withFunction<T>(in db: Database, _ body: () throws -> T) throws -> T {
        do {
            guard !patterns.isEmpty else { return try body() }
            let function = makeFunction()
            db.add(function: function)
            defer { db.remove(function: function) }
            return try body()
        } catch let error as DatabaseError where Self.isTooComplex(error) {
            throw TraceFilterError(
                position: 1, expected: "a filter with fewer terms or less nesting",
                message: "the filter is too complex for the store's database (SQLite: \(error.message ?? "\(error.resultCode)")); "
                    + "use fewer terms or less nesting")
        }
    }

    /// SQLite's complaints about a statement's size: expression depth, parser stack, variables, terms, length.
    static func isTooComplex(_ error: DatabaseError) -> Bool {
        if error.resultCode == .SQLITE_TOOBIG { return true }
        guard error.resultCode == .SQLITE_ERROR, let message = error.message?.lowercased() else { return false }
        return ["too large", "stack overflow", "too many", "too complex", "too deep"].contains { message.contains($0) }
    }

    private mutating func clause(_ filter: TraceFilter) -> String {
        switch filter {
        case .method(let method):
            return bind("exchange.method = ?", method)
        // Numbers and Loupe's own names are written as literals: only text from the user is bound, which keeps
        // the count of `?` far below SQLite's limit (999 on old builds) whatever the filter.
        case .status(let range) where range.lowerBound == range.upperBound:
            return "exchange.status = \(range.lowerBound)"
        case .status(let range):
            return "exchange.status BETWEEN \(range.lowerBound) AND \(range.upperBound)"
        case .host(let host):
            return bind("exchange.host IN (\(Self.distinctHosts) WHERE instr(lower(name), ?) > 0)", host)
        case .url(let pattern):
            return candidates(pattern, [.url], "\(Self.functionName)(\(add(pattern, .url)), exchange.url)")
        case .header(let pattern):
            let index = add(pattern, .headers)
            return candidates(pattern, [.headers],
                "(\(Self.functionName)(\(index), exchange.request_headers) OR \(Self.functionName)(\(index), exchange.response_headers))")
        case .body(let pattern):
            let index = add(pattern, .body)
            return candidates(pattern, [.requestBody, .responseBody],
                "(\(Self.bodyTest(index, "request")) OR \(Self.bodyTest(index, "response")))")
        case .requestBody(let pattern):
            return candidates(pattern, [.requestBody], Self.bodyTest(add(pattern, .body), "request"))
        case .responseBody(let pattern):
            return candidates(pattern, [.responseBody], Self.bodyTest(add(pattern, .body), "response"))
        case .operation(let name):
            return bind("exchange.operation = ?", name)
        case .message(let pattern):
            // Correlated, so that SQLite reads the messages of each candidate through `message_exchange` rather than
            // every message once for the whole query.
            let exact = "EXISTS (SELECT 1 FROM message WHERE message.exchange_sequence = exchange.sequence "
                + "AND \(Self.functionName)(\(add(pattern, .message)), message.payload))"
            return messageCandidates(pattern, exact)
        case .errorText(let pattern):
            return candidates(pattern, [.error],
                "(exchange.error IS NOT NULL AND \(Self.functionName)(\(add(pattern, .url)), exchange.error))")
        case .duration(let comparison):
            // The parser admits finite values only; Swift's text for a Double reads back as the same Double.
            return "exchange.duration \(comparison.op.rawValue) \(comparison.value)"
        case .attempts(let comparison):
            let sql = "exchange.attempt_count \(comparison.op.rawValue) \(comparison.value)"
            // The partial index `exchange_retried` (v8) holds the rows with `attempt_count > 1`: SQLite reads it only
            // when the query says so in those words, so a comparison that implies it says it too.
            return Self.impliesRetried(comparison) ? "(exchange.attempt_count > 1 AND \(sql))" : sql
        case .circuit(let match):
            let states = match.states.map { "'\($0)'" }.joined(separator: ", ")
            // The partial index `attempt_circuit` (v9) holds the attempts whose state is not `closed`: SQLite reads it
            // only when the query says so in those words, so states that leave `closed` out say it too.
            let unclosed = match.states.contains("closed") ? "" : "circuit_state <> 'closed' AND "
            let sql = "exchange.sequence IN (SELECT exchange_sequence FROM attempt WHERE \(unclosed)circuit_state IN (\(states)))"
            let refused = "exchange.outcome = '\(ExchangeOutcome.shortCircuited.rawValue)'"
            if match.states.isEmpty { return refused }  // `IN ()` is not SQL
            guard match.includesShortCircuited else { return sql }
            return "(exchange.outcome = '\(ExchangeOutcome.shortCircuited.rawValue)' OR \(sql))"
        case .error:
            // Literal, not bound: only then can SQLite use the partial index `exchange_errors`.
            return "exchange.outcome <> 'success'"
        case .replay:
            return "exchange.replay_of IS NOT NULL"
        case .served:
            // Literal: the `event_kind` index finds the few exchanges with a `served` event.
            return "exchange.sequence IN (SELECT exchange_sequence FROM event WHERE kind = 'served')"
        case .source(let app):
            // Schema v6's column; NULL (no source) never matches. `json_valid` first: a hand-edited row that is not
            // JSON would make json_extract raise "malformed JSON" and fail the whole query, not just miss.
            return bind(
                "(CASE WHEN json_valid(exchange.source) THEN instr(lower(json_extract(exchange.source, '$.app')), ?) > 0 ELSE 0 END)",
                app)
        case .rule(let name):
            return ruleClause(name)
        case .grpc(let status):
            // The stream column's JSON (kind, closeCode); `json_valid` first, as for `~src`. Literals: Loupe's own words
            // and a number the parser checked.
            let code = status.map { " AND json_extract(exchange.stream, '$.closeCode') = \($0)" } ?? ""
            return "(CASE WHEN json_valid(exchange.stream) THEN json_extract(exchange.stream, '$.kind') = 'grpc'\(code) ELSE 0 END)"
        case .drift:
            // Only a viewer holding the contract answers it (it puts `exchanges` in its place); the commands refuse it
            // before reading, so this is reached only by a filter built in code: it matches nothing.
            return "0"
        case .exchanges(let ids):
            // Bound once as a JSON array whatever their number, as the marks are.
            let json = "[" + ids.map { "\"\($0.uuidString)\"" }.sorted().joined(separator: ",") + "]"
            return bind("exchange.id IN (SELECT value FROM json_each(?))", json)
        case .since(let instant):
            // A literal, so the planner may read the range from `exchange_started_at`; Swift's text for a Double reads back as the same Double.
            return "exchange.started_at >= \(instant.seconds)"
        case .until(let instant):
            return "exchange.started_at < \(instant.seconds)"
        case .not:
            // A run of `!` is one test: `!!x` is `x` (an absent value stays "no match", as in memory).
            let (count, inner) = filter.negations
            let sql = clause(inner)
            return count.isMultiple(of: 2) ? sql : "(\(sql)) IS NOT 1"
        case .and:
            return chain(filter.conjuncts.map { clause($0) }, "AND")
        case .or:
            return chain(filter.disjuncts.map { clause($0) }, "OR")
        }
    }

    /// One body's test; the size test comes first so rows without a body never call into Swift.
    private static func bodyTest(_ index: Int, _ side: String) -> String {
        "(exchange.\(side)_body_size IS NOT NULL AND \(functionName)(\(index), exchange.\(side)_body, exchange.\(side)_body_size))"
    }

    /// `exact`, asked only of the rows the search index gives as candidates for `pattern`'s trigrams in `tables`
    /// (and of the rows the index does not cover: below its start mark, or written and not indexed yet), when the
    /// store has the index and the pattern requires trigrams; otherwise `exact` alone, over every row. The candidates are one `IN` list, so SQLite reads them by rowid
    /// rather than testing every row.
    private mutating func candidates(_ pattern: TextPattern, _ tables: [SearchIndex.Table], _ exact: String) -> String {
        guard indexed, let query = SearchIndex.query(pattern.indexTrigrams) else { return exact }
        let matches = tables.map { table in
            bind("SELECT rowid FROM \(table.rawValue) WHERE \(table.rawValue) MATCH ?", query)
        }
        let uncovered = "SELECT sequence FROM search_capped UNION ALL \(SearchIndex.uncoveredSequences)"
        return "(exchange.sequence IN (\((matches + [uncovered]).joined(separator: " UNION ALL "))) AND \(exact))"
    }

    /// `exact`, asked only of the exchanges with a message the index gives as a candidate (or one it holds only in
    /// part, or an exchange it does not cover), as ``candidates(_:_:_:)`` does for the exchange's own texts.
    private mutating func messageCandidates(_ pattern: TextPattern, _ exact: String) -> String {
        guard indexed, let query = SearchIndex.query(pattern.indexTrigrams) else { return exact }
        let matches = bind("SELECT exchange_sequence FROM message WHERE rowid IN (SELECT rowid FROM search_messages WHERE search_messages MATCH ?)", query)
        let uncovered = "SELECT sequence FROM search_message_capped UNION ALL \(SearchIndex.uncoveredSequences)"
        return "(exchange.sequence IN (\(matches) UNION ALL \(uncovered)) AND \(exact))"
    }

    /// Whether every exchange `comparison` matches took more than one attempt (`>1`, `>=2`, `3`…).
    static func impliesRetried(_ comparison: TraceFilter.Comparison<Int>) -> Bool {
        switch comparison.op {
        case .greaterThan: comparison.value >= 1
        case .greaterThanOrEqual, .equal: comparison.value >= 2
        case .lessThan, .lessThanOrEqual: false
        }
    }

    /// Operands joined by `op`, bracketed. Long chains are split into bracketed groups of at most
    /// ``chainWidth``, so `a AND b AND …` with hundreds of terms stays a shallow expression tree for SQLite
    /// (a flat chain nests one level per term, and SQLite refuses trees deeper than 1000).
    private func chain(_ operands: [String], _ op: String) -> String {
        var level = operands
        while level.count > Self.chainWidth {
            level = stride(from: 0, to: level.count, by: Self.chainWidth).map { start in
                "(" + level[start..<min(start + Self.chainWidth, level.count)].joined(separator: " \(op) ") + ")"
            }
        }
        return "(" + level.joined(separator: " \(op) ") + ")"
    }

    static let chainWidth = 16

    /// `~rule [name]`, out of line so `clause`'s recursive frame stays small. The `event_kind` index (v2) finds the
    /// few exchanges with rule events.
    @inline(never)
    private mutating func ruleClause(_ name: String?) -> String {
        let events = "exchange.sequence IN (SELECT exchange_sequence FROM event WHERE kind = 'rule'"
        guard let name else { return events + ")" }
        return bind(events + " AND instr(lower(json_extract(attributes, '$.rule')), ?) > 0)", name)
    }

    /// Appends the values of the `?`s in `sql`, in order.
    /// The distinct hosts, found by hopping through the `exchange_host` index (one seek per host, where
    /// `SELECT DISTINCT` would read every entry): `~d` then tests each host once instead of each row.
    static let distinctHosts = """
        WITH RECURSIVE hosts(name) AS (
            SELECT MIN(host) FROM exchange
            UNION ALL
            SELECT (SELECT MIN(host) FROM exchange WHERE host > hosts.name) FROM hosts WHERE hosts.name IS NOT NULL
        ) SELECT name FROM hosts
        """

    private mutating func bind(_ sql: String, _ arguments: (any DatabaseValueConvertible)...) -> String {
        values.append(contentsOf: arguments.map { $0 as (any DatabaseValueConvertible)? })
        return sql
    }

    private mutating func add(_ pattern: TextPattern, _ kind: PatternKind) -> Int {
        patterns.append((kind, pattern))
        return patterns.count - 1
    }

    private func makeFunction() -> DatabaseFunction {
        let patterns = patterns
        return DatabaseFunction(Self.functionName, argumentCount: nil, pure: true) { values in
            guard let index = Int.fromDatabaseValue(values[0]), patterns.indices.contains(index) else { return false }
            let (kind, pattern) = patterns[index]
            switch kind {
            case .url:
                return String.fromDatabaseValue(values[1]).map(pattern.matches) ?? false
            case .headers:
                guard let json = String.fromDatabaseValue(values[1]), let headers = try? StoredJSON.headers(json)
                else { return false }
                return pattern.matches(FilterText.headerLines(headers))
            case .body:
                // As RowReader reads it: a body exists when its size is set (an empty blob may read as NULL).
                guard !values[2].isNull else { return false }
                return pattern.matches(FilterText.bodyText(Data.fromDatabaseValue(values[1]) ?? Data()))
            case .message:
                // As RowReader reads a message: no payload is an empty one.
                return pattern.matches(FilterText.bodyText(Data.fromDatabaseValue(values[1]) ?? Data()))
            }
        }
    }
}
