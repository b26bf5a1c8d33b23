import Foundation
import HTTPTypes

/// Which breaker a request goes through: one per host (the default), per endpoint, or by a rule of your own.
public struct CircuitBreakerKeying: Sendable {
    /// Makes the key from the request and its operation name.
    public let key: @Sendable (_ request: HTTPRequest, _ operation: String) -> String

    /// A rule of your own, for example one breaker per host and first path segment.
    public static func custom(_ key: @escaping @Sendable (_ request: HTTPRequest, _ operation: String) -> String) -> Self {
        Self(key: key)
    }

    /// One breaker per authority (`host:port`): two services on one host are two failure domains.
    public static let host = Self { request, _ in request.authority ?? "unknown-host" }

    /// One breaker per operation name (`GET /users/1` when an endpoint names none, so name your endpoints).
    public static let endpoint = Self { _, operation in operation }
}
