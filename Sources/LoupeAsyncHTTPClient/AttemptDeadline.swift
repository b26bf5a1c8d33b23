import Loupe
import NIOCore
import Synchronization

/// Bounds a whole attempt (connect, request, response head and every body byte) by one timeout.
///
/// AsyncHTTPClient's own deadline stops at the response head, and its read timeout restarts with every chunk, so a
/// server trickling one byte a second would hold a request forever. Up to the head, AHC's deadline (the same
/// instant) decides, and reports why it ran out (a refused connection, a TLS failure) better than a timer could.
/// For the body, the attempt runs in a child task that ``BodyDeadlines`` cancels once its deadline passes; only the
/// attempt is cancelled, not the exchange, so a retry can follow. No sleeping task, timer or event-loop wake-up per
/// attempt: a sleeping task racing the work cost wake-ups, and so did a timer per attempt.
enum AttemptDeadline {
    nonisolated(nonsending) static func run<T: Sendable>(
        _ timeout: Duration, _ work: @escaping @Sendable (AttemptTimer) async throws -> T
    ) async throws -> T {
        let timer = AttemptTimer(timeout: timeout)
        let task = start { try await work(timer) }
        timer.attach { task.cancel() }
        defer { timer.finish() }
        do {
            return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch {
            if timer.cancelledTheAttempt { throw timedOut(timeout) }
            throw error
        }
    }

    /// An immediate task runs on this thread until it first suspends: no enqueue and wake-up to start it. (It also
    /// gets an executor-preference record that makes each executor check in it take a lock; `Task.init` would
    /// save that lock but start attempts late on a busy pool, which costs more than it saves.)
    private static func start<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return Task.immediate(operation: work)
        }
        return Task(operation: work)
    }

    /// The error for an attempt that ran out of time, whichever timer noticed first.
    static func timedOut(_ timeout: Duration) -> TransportError {
        // The project's one duration text: a deadline's remainder (2.999996754 s) reads `3.00 s`.
        TransportError(.timedOut, "the attempt took longer than its \(Quantity.duration(timeout)) timeout (response body included)")
    }
}

/// One attempt's deadline: AHC's for the head, ``BodyDeadlines``' for the body.
final class AttemptTimer: Sendable {
    let timeout: Duration
    let deadline: NIODeadline
    private struct State {
        var cancel: (@Sendable () -> Void)?
        var watched: UInt64?
        var cancelledTheAttempt = false
    }
    private let state = Mutex(State())

    init(timeout: Duration, from start: NIODeadline = .now()) {
        self.timeout = timeout
        self.deadline = start + .nanoseconds(AsyncHTTPClientTransport.nanoseconds(timeout))
    }

    /// How to cancel the attempt; called at once if its deadline was already acted on.
    func attach(_ cancel: @escaping @Sendable () -> Void) {
        let late = state.withLock { state -> Bool in
            state.cancel = cancel
            return state.cancelledTheAttempt
        }
        if late { cancel() }
    }

    /// The head arrived: from now on the deadline cancels the attempt. Throws when it has passed already (AHC was
    /// still within its own deadline for the head); checked after joining the watch, so no body goes unbounded.
    func bodyStarted() throws {
        let id = BodyDeadlines.shared.watch(self)
        state.withLock { $0.watched = id }
        if NIODeadline.now() >= deadline { throw AttemptDeadline.timedOut(timeout) }
    }

    /// The deadline passed while the body was being read: cancels the attempt.
    func expire() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.cancelledTheAttempt = true
            return state.cancel
        }
        cancel?()
    }

    /// The attempt ended: leaves the watch.
    func finish() {
        if let id = state.withLock({ $0.watched }) { BodyDeadlines.shared.unwatch(id) }
    }

    var cancelledTheAttempt: Bool { state.withLock { $0.cancelledTheAttempt } }
}
