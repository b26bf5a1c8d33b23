import Foundation
import Loupe
import LoupeTrace
import LoupeFormats

/// `explain_exchange`: one exchange told in sentences, for an agent (or a person) who wants to know what happened
/// without reading the attempt table: each attempt and how it ended, why it was retried or refused, which rule or
/// edit changed the request, and how the exchange ended. Everything it says is read from the record.
enum ExchangeStory {
    static func tell(_ exchange: TraceExchange, numbers: [UUID: Int64] = [:]) -> String {
        var lines: [String] = []
        let label = exchange.sequence.map { "#\($0)" } ?? ExchangeLabel.id(exchange.id)
        let operation = exchange.operation.isEmpty || exchange.operation == exchange.method ? "" : " (operation \(exchange.operation))"
        lines.append("\(label): \(exchange.method) \(exchange.url)\(operation), started \(Formatting.jsonDate(exchange.startedAt) ?? "at an unknown time").")
        if let source = exchange.source { lines.append("Sent by the linked app \(source.app) on \(source.host) (pid \(source.pid)).") }
        if let original = exchange.replayOf {
            lines.append("A replay of \(numbers[original].map { "#\($0)" } ?? ExchangeLabel.id(original)).")
        }
        if let asked = exchange.beforeRule {
            var changes: [String] = []
            if asked.method != exchange.method { changes.append("method \(asked.method) → \(exchange.method)") }
            if asked.url != exchange.url { changes.append("URL \(asked.url) → \(exchange.url)") }
            if asked.headers != exchange.requestHeaders { changes.append("headers") }
            if asked.body?.data != exchange.requestBody?.data { changes.append("body") }
            let what = changes.isEmpty ? "nothing visible" : changes.joined(separator: ", ")
            lines.append("A rule or an edit changed the request before it was sent (\(what)); what is recorded is what was sent.")
        }
        if exchange.attempts.isEmpty {
            lines.append("No attempt was made" + (exchange.outcome == .shortCircuited ? ": the circuit breaker refused it." : "."))
        }
        for attempt in exchange.attempts {
            var sentence = "Attempt \(attempt.number)"
            if let state = attempt.circuitState { sentence += " (breaker \(state))" }
            if let status = attempt.status {
                sentence += ": HTTP \(status)"
            } else if let error = attempt.error {
                sentence += ": failed, \(error)"
            } else {
                sentence += ": no answer recorded"
            }
            if let duration = attempt.duration { sentence += " after \(Quantity.duration(duration))" }
            if let reason = attempt.retryReason {
                sentence += "; retried"
                if let delay = attempt.retryDelay { sentence += " after waiting \(Quantity.duration(delay))" }
                sentence += " because \(reason)"
            }
            lines.append(sentence + ".")
        }
        for event in exchange.events {
            let offset = Quantity.duration(max(0, event.at.timeIntervalSince(exchange.startedAt)))
            lines.append("At +\(offset), \(event.kind): \(event.message)")
        }
        lines.append(ending(exchange))
        return lines.joined(separator: "\n")
    }

    private static func ending(_ exchange: TraceExchange) -> String {
        let took = exchange.duration.map { " after \(Quantity.duration($0))" } ?? ""
        let tries = exchange.attempts.count > 1 ? " and \(exchange.attempts.count) attempts" : ""
        switch exchange.outcome {
        case .success: return "It ended with HTTP \(exchange.status.map(String.init) ?? "?")\(took)\(tries)."
        case .httpError: return "It ended with the error status HTTP \(exchange.status.map(String.init) ?? "?")\(took)\(tries)."
        case .transportError: return "It failed without an answer\(took)\(tries): \(exchange.error ?? "transport error")."
        case .cancelled: return "It was cancelled\(took)\(tries)."
        case .shortCircuited:
            let before = exchange.status.map { " (the last answer before was HTTP \($0))" } ?? ""
            return "The circuit breaker refused to send it again\(before)\(took)."
        case .clientError: return "It failed in the client\(took): \(exchange.error ?? "client error")."
        }
    }
}
