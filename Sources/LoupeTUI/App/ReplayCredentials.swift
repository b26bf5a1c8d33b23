import Foundation
import LoupeTrace

/// Credentials a replay must do without, and where the inspector takes a replacement from.
///
/// A recorded header whose value was redacted (`Authorization`, `Cookie`, `X-Api-Key`…) is not sent again (the
/// secret is gone, and the marker would only be refused), so such a replay usually gets a 401. The inspector says
/// so before sending and takes a replacement from the environment: `LOUPE_REPLAY_` and the header's name in
/// capitals with `-` as `_` (`LOUPE_REPLAY_AUTHORIZATION='Bearer …'`). Only a header that the recording carried
/// (redacted) is filled, so a credential never goes to a request that did not send one (DECISIONS 164).
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

    /// What the confirmation says about redacted credentials, given the names the replayer fills:
    /// `Authorization was redacted when recorded and is left out (set LOUPE_REPLAY_AUTHORIZATION to send one)`, or
    /// `Authorization from $LOUPE_REPLAY_AUTHORIZATION`.
    package static func notes(_ exchange: TraceExchange, supplied: Set<String>) -> [String] {
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
        return notes
    }
}
