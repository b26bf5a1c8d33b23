import Loupe

/// Bounds a whole attempt (connect, request, response head and every body byte) by one timeout.
///
/// AsyncHTTPClient's own deadline stops at the response head, and its read timeout restarts with every chunk, so a
/// server trickling one byte a second would hold a request forever. Racing the work against a timer in a task
/// group cancels the work (AHC then closes the connection) when the timer wins.
enum AttemptDeadline {
    static func run<T: Sendable>(
        _ timeout: Duration, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            // The first child to finish decides; `nil` is the timer.
            if let value = try await group.next() ?? nil { return value }
            throw timedOut(timeout)
        }
    }

    /// The error for an attempt that ran out of time, whichever timer noticed first.
    static func timedOut(_ timeout: Duration) -> TransportError {
        TransportError(.timedOut, "the attempt took longer than its \(seconds(timeout)) timeout (response body included)")
    }

    /// `0.5 s`, `30 s`.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value == value.rounded() ? "\(Int64(value)) s" : "\(value) s"
    }
}
