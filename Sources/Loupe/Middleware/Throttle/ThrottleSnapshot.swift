import Foundation

/// How a ``ThrottleMiddleware``'s permits are used at one moment.
public struct ThrottleSnapshot: Sendable, Hashable {
    /// Requests holding a permit.
    public var running: Int
    /// Requests waiting for one.
    public var queued: Int
    /// Running requests per host (`host:port`), only hosts with at least one.
    public var runningPerHost: [String: Int]
    /// The client-wide limit (`nil`: none).
    public var maxConcurrent: Int?

    public init(running: Int, queued: Int, runningPerHost: [String: Int], maxConcurrent: Int?) {
        self.running = running
        self.queued = queued
        self.runningPerHost = runningPerHost
        self.maxConcurrent = maxConcurrent
    }

    /// Client-wide permits free now (`nil` when there is no client-wide limit).
    public var availablePermits: Int? { maxConcurrent.map { $0 - running } }
}
