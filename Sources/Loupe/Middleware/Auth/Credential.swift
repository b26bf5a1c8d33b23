import Foundation

/// A bearer token with its expiry and a generation number, so that a 401 for an older token is recognisable.
///
/// Providers create credentials with ``init(token:expiresAt:)``; ``BearerTokenAuthenticator`` stamps each one it
/// adopts with the next ``generation`` (1 for the first), so a response to a request sent with generation 3 can
/// be told apart from one sent with generation 4, whatever the tokens look like.
public struct Credential: Sendable, Hashable, CustomStringConvertible {
    /// The token sent as `Authorization: Bearer <token>`.
    public var token: String
    /// When the token stops being valid; `nil` when the provider does not know.
    public var expiresAt: Date?
    /// Which credential this is in the authenticator's history: 0 until adopted, then 1, 2, 3…
    public internal(set) var generation: Int

    /// A credential as a provider returns it.
    public init(token: String, expiresAt: Date? = nil) {
        self.token = token
        self.expiresAt = expiresAt
        self.generation = 0
    }

    /// Whether the token has expired at `now`, or will within `leeway` (refresh a little early rather than send a
    /// token that dies on the way).
    public func isExpired(at now: Date, leeway: Duration = .zero) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= leeway.timeInterval
    }

    /// Generation and expiry, never the token itself (descriptions end up in logs).
    public var description: String {
        "Credential(generation: \(generation), expiresAt: \(expiresAt.map { "\($0)" } ?? "unknown"))"
    }
}

private extension Duration {
    /// The duration in seconds, for arithmetic with `Date`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
