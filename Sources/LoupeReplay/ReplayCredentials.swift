import Foundation
import LoupeTrace

/// Credentials a replay must do without, and where the TUI takes a replacement from.
///
/// A recorded header whose value was redacted (`Authorization`, `Cookie`, `X-Api-Key`…) is not sent again (the
/// secret is gone, and the marker would only be refused), so such a replay usually gets a 401. The TUI says
/// so before sending and takes a replacement from the environment: `LOUPE_REPLAY_` and the header's name in
/// capitals with `-` as `_` (`LOUPE_REPLAY_AUTHORIZATION='Bearer …'`). Only a header that the recording carried
/// (redacted) is filled, so a credential never goes to a request that did not send one.
///
/// A query item whose value was redacted (`?api_key=[REDACTED]`) is treated the same way (issue 43.6): left out
/// of the replay and said before sending, or filled from `LOUPE_REPLAY_QUERY_` and the item's name in capitals
/// (`LOUPE_REPLAY_QUERY_API_KEY`), a prefix of its own so that a header and a query item of one name never
/// share a variable. `loupe replay` takes query values from the same variables.
package enum ReplayCredentials {
    /// The recorded request headers whose values were redacted, each name once, in recorded order.
    package static func redactedNames(_ exchange: TraceExchange) -> [String] {
        var seen: Set<String> = []
        return exchange.requestHeaders.compactMap { header in
            guard header.value == RedactionPolicy.marker, seen.insert(header.name.lowercased()).inserted else { return nil }
            return header.name
        }
    }

    /// `LOUPE_REPLAY_X_API_KEY` for `X-Api-Key`.
    package static func environmentName(for header: String) -> String {
        "LOUPE_REPLAY_" + header.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }

    /// The replacements `environment` holds for `exchange`'s redacted headers, by recorded name. A value with a
    /// control character (CR/LF would split the header) is not used.
    package static func supplied(for exchange: TraceExchange, environment: [String: String]) -> [(name: String, value: String)] {
        redactedNames(exchange).compactMap { name in
            guard let value = environment[environmentName(for: name)], !value.isEmpty,
                  !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
            return (name, value)
        }
    }

    /// `LOUPE_REPLAY_QUERY_API_KEY` for the query item `api_key`.
    package static func queryEnvironmentName(for item: String) -> String {
        "LOUPE_REPLAY_QUERY_" + item.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }

    /// The values `environment` holds for `exchange`'s redacted query items, by recorded name (a value with a
    /// control character is not used).
    package static func suppliedQuery(for exchange: TraceExchange, environment: [String: String]) -> [String: String] {
        var values: [String: String] = [:]
        for name in TraceReplayer.redactedQueryNames(in: exchange.url) {
            guard let value = environment[queryEnvironmentName(for: name)], !value.isEmpty,
                  !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { continue }
            values[name] = value
        }
        return values
    }

    /// What the confirmation says about redacted credentials, given the header names (lowercased) and query item
    /// names the replayer fills:
    /// `Authorization was redacted when recorded and is left out (set LOUPE_REPLAY_AUTHORIZATION to send one)`,
    /// `Authorization from $LOUPE_REPLAY_AUTHORIZATION`, `query api_key was redacted when recorded and is left out
    /// (set LOUPE_REPLAY_QUERY_API_KEY to send one)`, `query api_key from $LOUPE_REPLAY_QUERY_API_KEY`.
    package static func notes(_ exchange: TraceExchange, supplied: Set<String>, suppliedQuery: Set<String> = []) -> [String] {
        let redacted = redactedNames(exchange)
        let filled = redacted.filter { supplied.contains($0.lowercased()) }
        let missing = redacted.filter { !supplied.contains($0.lowercased()) }
        var notes: [String] = []
        if !missing.isEmpty {
            let names = missing.joined(separator: ", ")
            let variables = missing.map(environmentName).joined(separator: ", ")
            notes.append("\(names) \(missing.count == 1 ? "was" : "were") redacted when recorded and is left out (set \(variables) to send one)")
        }
        notes += filled.map { "\($0) from $\(environmentName(for: $0))" }
        let query = TraceReplayer.redactedQueryNames(in: exchange.url)
        let missingQuery = query.filter { !suppliedQuery.contains($0) }
        if !missingQuery.isEmpty {
            notes.append("query \(missingQuery.joined(separator: ", ")) \(missingQuery.count == 1 ? "was" : "were") redacted when recorded and is left out (set \(missingQuery.map(queryEnvironmentName).joined(separator: ", ")) to send one)")
        }
        notes += query.filter(suppliedQuery.contains).map { "query \($0) from $\(queryEnvironmentName(for: $0))" }
        return notes
    }
}
