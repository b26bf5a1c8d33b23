import Foundation

/// A token refresh failed, or was refused because too many happened recently; every request that waited on
/// that refresh fails with this same value.
public struct TokenRefreshError: Error, Sendable, CustomStringConvertible {
    /// Why no credential could be obtained.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        enum Base: String { case refreshFailed = "refresh failed", limitExceeded = "refresh limit exceeded" }
        let base: Base
        public var description: String { base.rawValue }

        /// The provider threw; ``TokenRefreshError/underlyingError`` says why.
        public static let refreshFailed = Reason(base: .refreshFailed)
        /// The ``TokenRefreshLimit`` was reached, so no refresh was attempted (a refresh storm was stopped).
        public static let limitExceeded = Reason(base: .limitExceeded)
    }

    /// Why it failed.
    public var reason: Reason
    /// What the provider threw (`nil` when the limit stopped the refresh before the provider was asked).
    public var underlyingError: (any Error)?
    /// The refresh round (1 for the first) this failure belongs to: equal for every request that shared it.
    public var round: Int
    /// The generation of the credential that was being replaced (`nil` for the initial load).
    public var rejectedGeneration: Int?

    public init(reason: Reason, underlyingError: (any Error)?, round: Int, rejectedGeneration: Int?) {
        self.reason = reason
        self.underlyingError = underlyingError
        self.round = round
        self.rejectedGeneration = rejectedGeneration
    }

    public var description: String {
        var text = "token \(reason) (round \(round)"
        if let rejectedGeneration { text += ", replacing generation \(rejectedGeneration)" }
        text += ")"
        if let underlyingError { text += ": \(underlyingError)" }
        return text
    }
}
