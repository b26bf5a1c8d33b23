import Foundation

/// Per-call facts about a request that are not HTTP: its priority and cache policy. They never go on the wire.
///
/// The client builds each request's ``RequestContext`` itself, so per-call metadata travels as a task-local value:
/// set it with ``Client/send(_:metadata:)`` (or `RequestMetadata.$current.withValue`), and middleware read
/// ``current``. Every task started inside inherits it, so it reaches every middleware and the transport.
public struct RequestMetadata: Sendable, Hashable {
    /// How urgent the request is; queues (throttling) may serve higher priorities first.
    public var priority: RequestPriority
    /// How ``ConditionalGETMiddleware`` uses its cache; `nil` leaves it to the middleware's default.
    public var cachePolicy: CachePolicy?
    /// The response body goes somewhere else (a download to a file): the body middleware see is empty, so caches
    /// must not store it and de-duplication must not share it.
    public internal(set) var streamsResponseBody: Bool

    /// Metadata with the given priority and cache policy.
    public init(priority: RequestPriority = .normal, cachePolicy: CachePolicy? = nil) {
        self.priority = priority
        self.cachePolicy = cachePolicy
        self.streamsResponseBody = false
    }

    /// The metadata of the request being sent by the current task.
    @TaskLocal public static var current = RequestMetadata()
}

/// How urgent a request is; higher values first.
public struct RequestPriority: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Prefetching and other work nobody waits for.
    public static let low = Self(rawValue: -1)
    /// The default.
    public static let normal = Self(rawValue: 0)
    /// A user is waiting for it.
    public static let high = Self(rawValue: 1)

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The task priority an exchange of this priority runs at: `nil` (inherit the caller's) for normal.
    var taskPriority: TaskPriority? {
        if rawValue > 0 { return .high }
        if rawValue < 0 { return .low }
        return nil
    }

    public var description: String {
        switch self {
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        default: "\(rawValue)"
        }
    }
}
