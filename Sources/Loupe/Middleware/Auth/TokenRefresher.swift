import Foundation
import Synchronization

/// Carries out ``TokenRefreshStateMachine``'s actions: keeps it behind a lock, parks waiting requests on
/// continuations, and runs each refresh round in a task of its own.
///
/// A `Mutex` rather than an actor: a waiting request's cancellation handler is synchronous and must take the
/// request out of the waiters at once, and the common path (a valid credential) then costs one lock, not a hop.
final class TokenRefresher: Sendable {
    typealias Round = TokenRefreshStateMachine.Round

    /// What a request learns from the refresher.
    struct Outcome: Sendable {
        enum Result: Sendable {
            case credential(Credential)
            case failed(TokenRefreshError)
            case cancelled
        }

        var result: Result
        /// The round this request waited for; `nil` when it was answered at once.
        var waitedFor: Round?
    }

    private struct Storage {
        var machine: TokenRefreshStateMachine
        var nextWaiter: UInt64 = 0
        var continuations: [UInt64: CheckedContinuation<Outcome, Never>] = [:]
    }

    private let storage: Mutex<Storage>
    private let provider: any TokenProvider
    private let now: @Sendable () -> Date

    init(provider: any TokenProvider, limit: TokenRefreshLimit, leeway: Duration, now: @escaping @Sendable () -> Date) {
        self.storage = Mutex(Storage(machine: TokenRefreshStateMachine(limit: limit, leeway: leeway)))
        self.provider = provider
        self.now = now
    }

    var currentCredential: Credential? { storage.withLock { $0.machine.credential } }
    var waitingCount: Int { storage.withLock { $0.machine.waitingCount } }

    /// The credential a new request should carry, refreshing first when there is none or it has expired.
    func credentialForRequest() async -> Outcome {
        await obtain { machine, waiter, date in machine.credentialForRequest(waiter: waiter, now: date) }
    }

    /// The credential a new request can carry right away, or `nil` when it has to go through
    /// ``credentialForRequest()``: the common path, one lock and no suspension.
    func usableCredential() -> Credential? {
        let date = now()
        return storage.withLock { $0.machine.usableCredential(now: date) }
    }

    /// The credential to retry with after the server rejected `generation`.
    func credentialAfterRejection(of generation: Int) async -> Outcome {
        await obtain { machine, waiter, date in
            machine.credentialAfterRejection(of: generation, waiter: waiter, now: date)
        }
    }

    private func obtain(
        _ decide: (inout TokenRefreshStateMachine, UInt64, Date) -> TokenRefreshStateMachine.Action
    ) async -> Outcome {
        let waiter = storage.withLock { storage in
            storage.nextWaiter += 1
            return storage.nextWaiter
        }
        let date = now()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let action = storage.withLock { storage -> TokenRefreshStateMachine.Action? in
                    // Checked under the lock: either the cancellation handler already ran (the flag is set, so
                    // this request never parks) or it runs later and finds the parked waiter; never neither.
                    if Task.isCancelled { return nil }
                    let action = decide(&storage.machine, waiter, date)
                    switch action {
                    case .wait, .startRefreshAndWait: storage.continuations[waiter] = continuation
                    case .use, .fail: break
                    }
                    return action
                }
                switch action {
                case nil: continuation.resume(returning: Outcome(result: .cancelled, waitedFor: nil))
                case .use(let credential): continuation.resume(returning: Outcome(result: .credential(credential)))
                case .fail(let error): continuation.resume(returning: Outcome(result: .failed(error)))
                case .wait: break
                case .startRefreshAndWait(let round): startRefresh(round)
                }
            }
        } onCancel: {
            let left = storage.withLock { storage -> (CheckedContinuation<Outcome, Never>, Round)? in
                guard let round = storage.machine.cancel(waiter),
                      let continuation = storage.continuations.removeValue(forKey: waiter) else { return nil }
                return (continuation, round)
            }
            left?.0.resume(returning: Outcome(result: .cancelled, waitedFor: left?.1))
        }
    }

    private func startRefresh(_ round: Round) {
        let provider = self.provider
        // A task of its own: the round belongs to every waiter, so cancelling whichever request happened to start
        // it must not cancel it. The task-local makes the provider's own requests bypass the bearer middleware.
        Task {
            let result: Result<Credential, any Error>
            do {
                result = .success(try await BearerTokenMiddleware.$isInsideTokenRefresh.withValue(true) {
                    if let replacing = round.replacing { return try await provider.refresh(replacing) }
                    return try await provider.currentCredential()
                })
            } catch {
                result = .failure(error)
            }
            self.complete(round, with: result)
        }
    }

    private func complete(_ round: Round, with result: Result<Credential, any Error>) {
        let (outcome, continuations) = storage.withLock { storage -> (Outcome.Result, [CheckedContinuation<Outcome, Never>]) in
            let resolved: (Outcome.Result, [UInt64])?
            switch result {
            case .success(let fresh):
                resolved = storage.machine.refreshSucceeded(fresh, round: round.id).map { (.credential($0.0), $0.1) }
            case .failure(let error):
                resolved = storage.machine.refreshFailed(error, round: round.id).map { (.failed($0.0), $0.1) }
            }
            guard let (outcome, waiters) = resolved else { return (.cancelled, []) }
            return (outcome, waiters.compactMap { storage.continuations.removeValue(forKey: $0) })
        }
        for continuation in continuations {
            continuation.resume(returning: Outcome(result: outcome, waitedFor: round))
        }
    }
}

extension TokenRefresher.Outcome {
    init(result: Result) { self.init(result: result, waitedFor: nil) }
}
