import Foundation

/// A parsed filter expression: the one language the CLI (`--filter`) and the TUI (`f`) share.
///
/// Terms, in the spirit of mitmproxy's filter language:
///
/// | Term | Matches |
/// |------|---------|
/// | `~m POST` | the method (the term is upper-cased; methods compare exactly) |
/// | `~c 503`, `~c 5xx`, `~c 500-504` | the final status, one code, a class or a range |
/// | `~d example.com` | hosts containing the text, ignoring ASCII case |
/// | `~u regex` | the URL (regex, ignoring case); a bare word means `~u word` |
/// | `~h regex` | request or response header lines `Name: value` (regex, ignoring case, `^`/`$` per line) |
/// | `~b regex` | request or response body text (regex, case-sensitive; `(?i)` to ignore case) |
/// | `~bq regex`, `~bs regex` | the request body only, the response body only (as `~b`) |
/// | `~msg regex` | a stream message's payload as text (SSE event data, WebSocket messages, gRPC messages' bytes), as `~b` reads a body |
/// | `~err regex` | the exchange's error text (regex, ignoring case) |
/// | `~any regex` | the URL, a header line, a body, a stream message or the error text: parsed as `~u regex \| ~h regex \| ~b regex \| ~msg regex \| ~err regex` |
/// | `~op name` | the operation name, exactly |
/// | `~gql name` | a GraphQL operation by its name (`query name`, `mutation name`, `subscription name`, `persisted name`) |
/// | `~dur >500ms` | the duration (`>` `>=` `<` `<=` `=`; units `ms`, `s`); unfinished exchanges never match |
/// | `~att >1` | the number of attempts (same comparisons) |
/// | `~cb open` | the breaker was open (or forced open) when any attempt was dispatched, or the call was short-circuited; also `half-open`, `closed`, `forced-open`, `disabled` |
/// | `~cb short-circuited` | only calls the breaker refused (nothing was sent) |
/// | `~e` | errors: any outcome but success |
/// | `~replay` | replays of another exchange |
/// | `~served` | exchanges `loupe serve` answered from a recording, misses included |
/// | `~src name` | exchanges from a linked app whose name contains the text, ignoring ASCII case (`loupe listen`) |
/// | `~rule`, `~rule name` | exchanges a rule acted on (mock, fault, rewrite, breakpoint); with a name, a rule whose name contains it |
/// | `~grpc` | gRPC calls (recorded by `LoupeGRPC`) |
/// | `~gs UNAVAILABLE`, `~gs 14` | gRPC calls that ended with that status, by name (any case) or number |
/// | `~drift`, `~drift KIND` | exchanges that drift from the OpenAPI contract (of that kind): only where one is loaded (`loupe tui --openapi`) |
/// | `~since 10m`, `~since 2026-12-06T23:30Z` | exchanges that started at or after the time: a span (`s`, `m`, `h`, `d`) back from when the filter is read, or ISO-8601 (local time without a zone) |
/// | `~until TIME` | exchanges that started before the time (so `~until T` and `~since T` split a store in two) |
///
/// Combine with `!` (not), `&` (and), `|` (or) and parentheses; adjacent terms are joined by `&`. `!` binds
/// tighter than `&`, which binds tighter than `|`. Arguments end at whitespace, parentheses, `&` and `|`: quote
/// them (`"…"` or `'…'`, with `\"` and `\\` escapes) when they contain those.
///
/// Regexes use ICU's syntax without back-references and look-around (``TextPattern``), and match in time linear
/// in the text. A filter has at most 10,000 characters, 500 terms and 16 levels of `(` and `!`; past those,
/// parsing fails with the limit and the position.
///
/// ```swift
/// let filter = try TraceFilter.parse("~c 5xx | ~b secret")
/// filter.matches(exchange)                                   // in memory (the TUI, InMemoryTraceStore)
/// try store.summaries(matching: filter, limit: 50)           // SQLite runs the indexed parts in SQL
/// ```
public indirect enum TraceFilter: Sendable, Hashable, CustomStringConvertible {
    /// `~m METHOD` (stored upper-cased).
    case method(String)
    /// `~c 503`, `~c 5xx`, `~c 500-504`: the final status lies in the range.
    case status(ClosedRange<Int>)
    /// `~d host`: the host contains this text (stored lower-cased; compared ignoring ASCII case).
    case host(String)
    /// `~u regex` or a bare word: the URL matches.
    case url(TextPattern)
    /// `~h regex`: a request or response header line matches.
    case header(TextPattern)
    /// `~b regex`: the request or response body text matches.
    case body(TextPattern)
    /// `~bq regex`: the request body text matches.
    case requestBody(TextPattern)
    /// `~bs regex`: the response body text matches.
    case responseBody(TextPattern)
    /// `~op name`: the operation name is exactly this.
    case operation(String)
    /// `~msg regex`: a kept stream message's payload text matches.
    case message(TextPattern)
    /// `~err regex`: the exchange's error text matches.
    case errorText(TextPattern)
    /// `~dur >500ms`: the duration in seconds compares so.
    case duration(Comparison<Double>)
    /// `~att >1`: the number of attempts compares so.
    case attempts(Comparison<Int>)
    /// `~cb open`: the breaker state seen at dispatch.
    case circuit(CircuitMatch)
    /// `~e`: the outcome is not success.
    case error
    /// `~replay`: the exchange replays another one.
    case replay
    /// `~served`: `loupe serve` answered it (a `served` event), a miss included.
    case served
    /// `~src name`: sent over the live link by an app whose name contains `name` (lower-cased), ignoring ASCII case.
    case source(String)
    /// `~rule [name]`: a rule acted on the exchange (a `rule` event); with a name (lower-cased), one whose name contains it.
    case rule(String?)
    /// `~grpc` (any status) or `~gs CODE`: gRPC calls, with that status code when one is given (0…16).
    case grpc(status: Int?)
    /// `~drift [kind]`: the exchange drifts from the contract (with a finding of that kind). Only a viewer holding the
    /// contract can answer it: it replaces the term with ``exchanges(_:)`` before the filter is evaluated.
    case drift(String?)
    /// The exchanges with these ids: what a viewer put in place of a term only it can answer (`~drift`, `~op` by
    /// the contract). Never parsed.
    case exchanges(Set<UUID>)
    /// `~since TIME`: the exchange started at or after the instant.
    case since(FilterInstant)
    /// `~until TIME`: the exchange started before the instant.
    case until(FilterInstant)
    /// `!x`
    case not(TraceFilter)
    /// `x & y`, or `x y`
    case and(TraceFilter, TraceFilter)
    /// `x | y`
    case or(TraceFilter, TraceFilter)

    /// Whether matching needs headers or bodies (`~h`, `~b`), not just the columns a ``TraceSummary`` has.
    public var needsContent: Bool {
        // An explicit stack: `a & b & c …` nests one level per term.
        var pending = [self]
        while let next = pending.popLast() {
            switch next {
            case .header, .body, .requestBody, .responseBody, .message: return true
            case .method, .status, .host, .url, .operation, .errorText, .duration, .attempts, .circuit, .error, .replay, .served, .source, .rule, .grpc,
                 .drift, .exchanges, .since, .until: break
            case .not(let inner): pending.append(inner)
            case .and(let left, let right), .or(let left, let right): pending += [right, left]
            }
        }
        return false
    }

    /// What a viewer without a contract says of a filter that ``needsContract``.
    public static let contractNeeded = "~drift needs the OpenAPI contract: loupe tui --openapi FILE"

    /// Whether the filter has a term only a viewer holding an OpenAPI contract can answer (`~drift`).
    public var needsContract: Bool {
        var pending = [self]
        while let next = pending.popLast() {
            switch next {
            case .drift: return true
            case .not(let inner): pending.append(inner)
            case .and(let left, let right), .or(let left, let right): pending += [right, left]
            default: break
            }
        }
        return false
    }

    /// The operands of the `&` chain this filter heads, left to right (itself when it is no `&`).
    ///
    /// `a & b & c` parses as `.and(.and(a, b), c)`, nesting one level per term; code that walks filters takes
    /// whole chains at once, found without recursion, so its depth follows the brackets, not the length.
    package var conjuncts: [TraceFilter] {
        operands { if case .and(let left, let right) = $0 { (left, right) } else { nil } }
    }

    /// The operands of the `|` chain this filter heads, left to right (itself when it is no `|`).
    package var disjuncts: [TraceFilter] {
        operands { if case .or(let left, let right) = $0 { (left, right) } else { nil } }
    }

    private func operands(_ split: (TraceFilter) -> (TraceFilter, TraceFilter)?) -> [TraceFilter] {
        var result: [TraceFilter] = []
        var pending = [self]
        while let next = pending.popLast() {
            if let (left, right) = split(next) {
                pending += [right, left]
            } else {
                result.append(next)
            }
        }
        return result
    }

    /// How many `!` wrap the filter under them: `!!x` is `(2, x)`.
    package var negations: (count: Int, inner: TraceFilter) {
        var count = 0
        var inner = self
        while case .not(let next) = inner {
            count += 1
            inner = next
        }
        return (count, inner)
    }

    /// The canonical text of this filter; parsing it gives an equal filter.
    public var description: String { TraceFilterPrinter.text(self) }
}

extension TraceFilter {
    /// A comparison such as `>500ms` or `<=2`.
    public struct Comparison<Value: Comparable & Hashable & Sendable>: Sendable, Hashable {
        public var op: ComparisonOperator
        public var value: Value

        public init(_ op: ComparisonOperator, _ value: Value) {
            self.op = op
            self.value = value
        }

        /// Whether `candidate op value` holds.
        public func holds(for candidate: Value) -> Bool {
            switch op {
            case .lessThan: candidate < value
            case .lessThanOrEqual: candidate <= value
            case .equal: candidate == value
            case .greaterThanOrEqual: candidate >= value
            case .greaterThan: candidate > value
            }
        }
    }

    /// The comparisons `~dur` and `~att` accept.
    public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
        case lessThan = "<"
        case lessThanOrEqual = "<="
        case equal = "="
        case greaterThanOrEqual = ">="
        case greaterThan = ">"
    }

    /// A breaker state for `~cb`, matched against ``TraceAttempt/circuitState`` (the breaker's raw state names).
    public enum CircuitMatch: String, Sendable, Hashable, CaseIterable {
        /// Open or forced open at dispatch, or short-circuited without a dispatch.
        case open
        case halfOpen = "half-open"
        case closed
        case forcedOpen = "forced-open"
        case disabled
        /// `~cb short-circuited`: only the calls the breaker refused (nothing was sent), the glossary's word for
        /// them; `~cb open` also matches calls dispatched while it was open.
        case shortCircuited = "short-circuited"

        /// The recorded ``TraceAttempt/circuitState`` values this matches.
        public var states: [String] {
            switch self {
            case .open: ["open", "forced-open"]
            case .halfOpen, .closed, .forcedOpen, .disabled: [rawValue]
            case .shortCircuited: []
            }
        }

        /// Whether a short-circuited exchange (no attempt dispatched) matches too.
        public var includesShortCircuited: Bool { self == .open || self == .shortCircuited }
    }
}

extension TraceFilter {
    /// Structural equality with an explicit stack: the synthesized `==` recursed once per `&` of a chain, and a
    /// 500-term filter went past a 512 KiB thread stack in debug builds once `~rule` made each frame larger.
    public static func == (lhs: TraceFilter, rhs: TraceFilter) -> Bool {
        var pending = [(lhs, rhs)]
        while let (left, right) = pending.popLast() {
            switch (left, right) {
            case (.not(let a), .not(let b)): pending.append((a, b))
            case (.and(let a1, let a2), .and(let b1, let b2)), (.or(let a1, let a2), .or(let b1, let b2)):
                pending += [(a2, b2), (a1, b1)]
            default:
                guard sameTerm(left, right) else { return false }
            }
        }
        return true
    }

    @inline(never)
    private static func sameTerm(_ left: TraceFilter, _ right: TraceFilter) -> Bool {
        switch (left, right) {
        case (.method(let a), .method(let b)), (.host(let a), .host(let b)), (.operation(let a), .operation(let b)),
             (.source(let a), .source(let b)):
            a == b
        case (.status(let a), .status(let b)): a == b
        case (.url(let a), .url(let b)), (.header(let a), .header(let b)), (.body(let a), .body(let b)),
             (.requestBody(let a), .requestBody(let b)), (.responseBody(let a), .responseBody(let b)),
             (.message(let a), .message(let b)), (.errorText(let a), .errorText(let b)):
            a == b
        case (.duration(let a), .duration(let b)): a == b
        case (.attempts(let a), .attempts(let b)): a == b
        case (.circuit(let a), .circuit(let b)): a == b
        case (.error, .error), (.replay, .replay), (.served, .served): true
        case (.rule(let a), .rule(let b)): a == b
        case (.grpc(let a), .grpc(let b)): a == b
        case (.drift(let a), .drift(let b)): a == b
        case (.exchanges(let a), .exchanges(let b)): a == b
        case (.since(let a), .since(let b)), (.until(let a), .until(let b)): a == b
        default: false
        }
    }
}
