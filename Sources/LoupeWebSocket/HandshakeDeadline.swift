import Synchronization

/// Bounds the wait for a WebSocket handshake's answer (issue 44, item 6).
///
/// The library awaits the upgrade as a future that no cancellation reaches, and a server that accepts the TCP
/// connection and never answers (or closes it before answering) left `loupe ws` waiting forever. So the connection
/// runs in a task of its own and this waits for whichever comes first: the connection ending, or the deadline with
/// the connection still not open. Once open, the deadline no longer matters.
final class HandshakeDeadline: Sendable {
    private struct State {
        var waiter: CheckedContinuation<Bool, Never>?
        var answer: Bool?
    }

    private let state = Mutex(State())

    /// Waits until `running` ends (false) or `timeout` passes before `isOpen()` (true: the handshake timed out).
    static func timedOut<T: Sendable>(_ running: Task<T, any Error>, timeout: Duration,
                                      isOpen: @escaping @Sendable () -> Bool) async -> Bool {
        let deadline = HandshakeDeadline()
        // Not awaited: it ends with `running`, which the caller cancels or awaits.
        Task {
            _ = await running.result
            deadline.answer(false)
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled, !isOpen() { deadline.answer(true) }
        }
        let answer = await withCheckedContinuation { continuation in
            let ready = deadline.state.withLock { state -> Bool? in
                if let answer = state.answer { return answer }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        timer.cancel()
        return answer
    }

    private func answer(_ value: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.answer == nil else { return nil }
            state.answer = value
            return state.waiter.take()
        }
        waiter?.resume(returning: value)
    }
}
