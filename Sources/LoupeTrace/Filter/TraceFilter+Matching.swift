import Foundation
import Loupe

extension TraceFilter {
    /// Whether `exchange` matches, evaluated in memory (the TUI, ``InMemoryTraceStore``).
    ///
    /// ``SQLiteTraceStore`` gives the same answers from SQL: strings compare byte for byte, hosts ignore ASCII case
    /// only, an absent status or duration never matches a comparison.
    public func matches(_ exchange: TraceExchange) -> Bool {
        switch self {
        case .method(let method):
            return FilterText.sameBytes(exchange.method, method)
        case .status(let range):
            return exchange.status.map(range.contains) ?? false
        case .host(let host):
            return FilterText.containsBytes(FilterText.asciiLowercased(exchange.host), host)
        case .url(let pattern):
            return pattern.matches(exchange.url)
        case .header(let pattern):
            return pattern.matches(FilterText.headerLines(exchange.requestHeaders))
                || pattern.matches(FilterText.headerLines(exchange.responseHeaders))
        case .body(let pattern):
            return [exchange.requestBody, exchange.responseBody].contains { body in
                body.map { pattern.matches(FilterText.bodyText($0.data)) } ?? false
            }
        case .requestBody(let pattern):
            return exchange.requestBody.map { pattern.matches(FilterText.bodyText($0.data)) } ?? false
        case .responseBody(let pattern):
            return exchange.responseBody.map { pattern.matches(FilterText.bodyText($0.data)) } ?? false
        case .operation(let name):
            return FilterText.sameBytes(exchange.operation, name)
        case .message(let pattern):
            return exchange.stream?.messages.contains { pattern.matches(FilterText.bodyText($0.payload)) } ?? false
        case .errorText(let pattern):
            return exchange.error.map(pattern.matches) ?? false
        case .duration(let comparison):
            return exchange.duration.map(comparison.holds) ?? false
        case .attempts(let comparison):
            return comparison.holds(for: exchange.attempts.count)
        case .circuit(let match):
            if match.includesShortCircuited && exchange.outcome == .shortCircuited { return true }
            return exchange.attempts.contains { attempt in
                guard let state = attempt.circuitState else { return false }
                return match.states.contains { FilterText.sameBytes($0, state) }
            }
        case .error:
            return exchange.outcome != .success
        case .replay:
            return exchange.replayOf != nil
        case .served:
            return exchange.events.contains { $0.kind == .served }
        case .source(let app):
            return exchange.source.map { FilterText.containsBytes(FilterText.asciiLowercased($0.app), app) } ?? false
        case .rule(let name):
            return Self.ruleActed(on: exchange, named: name)
        case .grpc(let status):
            return exchange.stream.map { Self.isCall($0, status: status) } ?? false
        case .drift:
            return false  // unanswered here: a viewer holding the contract puts `exchanges` in its place
        case .exchanges(let ids):
            return ids.contains(exchange.id)
        // Seconds since 1970, as the store compares its `started_at`.
        case .since(let instant):
            return exchange.startedAt.timeIntervalSince1970 >= instant.seconds
        case .until(let instant):
            return exchange.startedAt.timeIntervalSince1970 < instant.seconds
        // Whole chains at a time, so recursion follows brackets, never the length of `a & b & c …`.
        case .not:
            let (count, inner) = negations
            return inner.matches(exchange) == count.isMultiple(of: 2)
        case .and:
            return conjuncts.allSatisfy { $0.matches(exchange) }
        case .or:
            return disjuncts.contains { $0.matches(exchange) }
        }
    }
}

extension TraceFilter {
    /// `~grpc` / `~gs CODE` on a stream (a summary's carries its close too).
    static func isCall(_ stream: TraceStream, status: Int?) -> Bool {
        stream.kind == .grpc && (status.map { stream.closeCode == $0 } ?? true)
    }

    /// `~rule [name]`. Out of line: `matches` recurses once per bracket, and a closure here would grow every
    /// frame of it (the worst filters must fit a 512 KiB thread stack).
    @inline(never)
    static func ruleActed(on exchange: TraceExchange, named name: String?) -> Bool {
        exchange.events.contains { event in
            event.kind == .rule
                && (name.map { FilterText.containsBytes(FilterText.asciiLowercased(event.attributes["rule"] ?? ""), $0) } ?? true)
        }
    }

    /// Whether `summary` matches, or `nil` when that depends on what a summary lacks (headers and bodies for
    /// `~h`/`~b`, breaker states for `~cb` unless the exchange was short-circuited).
    ///
    /// `!`, `&` and `|` follow three-valued logic, so `~c 5xx | ~b secret` is `true` for any 5xx row without
    /// reading its body. Lists can show decided rows at once and load only the undecided ones.
    public func matches(_ summary: TraceSummary) -> Bool? {
        switch self {
        case .method(let method): return FilterText.sameBytes(summary.method, method)
        case .status(let range): return summary.status.map(range.contains) ?? false
        case .host(let host): return FilterText.containsBytes(FilterText.asciiLowercased(summary.host), host)
        case .url(let pattern): return pattern.matches(summary.url)
        case .header, .body, .requestBody, .responseBody, .message: return nil
        case .errorText(let pattern): return summary.error.map(pattern.matches) ?? false
        case .operation(let name): return FilterText.sameBytes(summary.operation, name)
        case .duration(let comparison): return summary.duration.map(comparison.holds) ?? false
        case .attempts(let comparison): return comparison.holds(for: summary.attemptCount)
        case .circuit(let match): return match.includesShortCircuited && summary.outcome == .shortCircuited ? true : nil
        case .error: return summary.outcome != .success
        case .replay: return summary.replayOf != nil
        case .source: return nil  // a summary has no source
        case .rule, .served: return nil  // nor events
        case .grpc(let status): return summary.stream.map { Self.isCall($0, status: status) } ?? false
        case .drift: return false
        case .exchanges(let ids): return ids.contains(summary.id)
        case .since(let instant): return summary.startedAt.timeIntervalSince1970 >= instant.seconds
        case .until(let instant): return summary.startedAt.timeIntervalSince1970 < instant.seconds
        case .not:
            let (count, inner) = negations
            return inner.matches(summary).map { $0 == count.isMultiple(of: 2) }
        case .and:
            var result: Bool? = true
            for operand in conjuncts {
                switch operand.matches(summary) {
                case false?: return false
                case nil: result = nil
                case true?: break
                }
            }
            return result
        case .or:
            var result: Bool? = false
            for operand in disjuncts {
                switch operand.matches(summary) {
                case true?: return true
                case nil: result = nil
                case false?: break
                }
            }
            return result
        }
    }
}
