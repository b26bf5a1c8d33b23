import Foundation
import HTTPTypes
import Synchronization

/// A named server the client can talk to (production, staging, local…): a base URL and default header fields.
public struct ServerEnvironment: Sendable, Hashable {
    /// The name shown in the recorder (attempt annotation `environment`).
    public var name: String
    /// Scheme, host, port and path prefix every request is moved to.
    public var baseURL: URL
    /// Header fields added to every request that does not set them itself.
    public var defaultHeaders: HTTPFields

    /// An environment called `name` at `baseURL`, adding `defaultHeaders` to requests.
    public init(name: String, baseURL: URL, defaultHeaders: HTTPFields = [:]) {
        self.name = name
        self.baseURL = baseURL
        self.defaultHeaders = defaultHeaders
    }
}

/// A set of named environments and the one in use, switchable while the client runs (a debug menu, a CLI flag).
public final class ServerEnvironmentSwitch: Sendable {
    /// Every environment, in the order given.
    public let environments: [ServerEnvironment]
    private let selected: Mutex<ServerEnvironment>

    /// Starts on `initial`, which is added to `environments` when missing.
    public init(_ environments: [ServerEnvironment], initial: ServerEnvironment) {
        self.environments = environments.contains(initial) ? environments : environments + [initial]
        self.selected = Mutex(initial)
    }

    /// The environment requests go to now.
    public var current: ServerEnvironment { selected.withLock { $0 } }

    /// Switches to the environment called `name`; requests already sent keep their environment.
    public func select(_ name: String) throws {
        guard let environment = environments.first(where: { $0.name == name }) else {
            throw UnknownEnvironmentError(name: name, known: environments.map(\.name))
        }
        selected.withLock { $0 = environment }
    }
}

/// ``ServerEnvironmentSwitch/select(_:)`` was given a name it does not know.
public struct UnknownEnvironmentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name asked for.
    public var name: String
    /// The names that exist.
    public var known: [String]

    public var description: String { "no environment named \(name) (known: \(known.joined(separator: ", ")))" }
}
