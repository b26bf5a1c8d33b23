import Foundation
import LoupeTrace

/// What ``TraceStore/lookup(_:)`` found for a reference typed by a user.
package enum ExchangeLookup: Sendable, Hashable {
    case found(TraceExchange)
    case notFound
    /// A prefix that several ids share (the first few, by id).
    case ambiguous([TraceSummary])
}

extension TraceStore {
    /// Finds one exchange by how a user names it: a whole id, a unique id prefix (any case, like a git hash), or
    /// a sequence number (`42` or `#42`).
    ///
    /// Digits alone are tried as a sequence number first, then as an id prefix; `#42` is only a sequence number.
    package func lookup(_ reference: String) throws -> ExchangeLookup {
        let text = reference.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("#") {
            guard let sequence = Int64(text.dropFirst()) else { return .notFound }
            return try exchange(sequence: sequence).map(ExchangeLookup.found) ?? .notFound
        }
        if let id = UUID(uuidString: text) {
            return try exchange(id: id).map(ExchangeLookup.found) ?? .notFound
        }
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let sequence = Int64(text),
           let found = try exchange(sequence: sequence) {
            return .found(found)
        }
        guard !text.isEmpty, text.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { return .notFound }
        let candidates = try summaries(idPrefix: text, limit: 5)
        switch candidates.count {
        case 0: return .notFound
        case 1: return try exchange(id: candidates[0].id).map(ExchangeLookup.found) ?? .notFound
        default: return .ambiguous(candidates)
        }
    }
}
