import Foundation

/// The single-flight refresh logic as a value: each method takes the facts (time, a waiter's id) and returns
/// what to do, so every interleaving can be tested without tasks; ``TokenRefresher`` only carries actions out.
///
/// At most one refresh round runs at a time. A 401 for a credential older than the current one is answered
/// with the current one (no second refresh); after a failed round, requests that were sent with the rejected
/// credential fail with that round's error, and the next new request starts a fresh round.
struct TokenRefreshStateMachine: Sendable {
    typealias WaiterID = UInt64

    /// What started a refresh round; shown in the recorder.
    enum Trigger: Sendable, Hashable, CustomStringConvertible {
        /// No credential yet: ask the provider for its current one.
        case initial
        /// The credential of this generation has expired (or is within the leeway).
        case expired(generation: Int)
        /// The server answered 401 to this generation.
        case rejected(generation: Int)
        /// The last round failed, so this generation is known to be bad.
        case previousFailure(generation: Int)

        var description: String {
            switch self {
            case .initial: "initial credential"
            case .expired(let generation): "generation \(generation) expired"
            case .rejected(let generation): "401 on generation \(generation)"
            case .previousFailure(let generation): "generation \(generation) unusable after a failed refresh"
            }
        }
    }

    /// One refresh: its number, why it started, and the credential it replaces (`nil` for the initial load).
    struct Round: Sendable, Hashable {
        var id: Int
        var trigger: Trigger
        var replacing: Credential?
    }

    enum State: Sendable {
        case idle
        case refreshing(Round, waiters: [WaiterID])
        case failed(TokenRefreshError)
    }

    enum Action: Sendable {
        /// Send with this credential now.
        case use(Credential)
        /// The waiter joined the running round; it is resumed when the round completes.
        case wait(Round)
        /// The waiter is the first of a new round: start the refresh, then wait like the others.
        case startRefreshAndWait(Round)
        /// Fail at once with this error.
        case fail(TokenRefreshError)
    }

    private(set) var state: State = .idle
    private(set) var credential: Credential?
    private var recentRefreshes: [Date] = []
    private var roundCount = 0
    let limit: TokenRefreshLimit
    let leeway: Duration

    init(limit: TokenRefreshLimit, leeway: Duration) {
        self.limit = limit
        self.leeway = leeway
    }

    /// How many requests wait for the running round.
    var waitingCount: Int {
        if case .refreshing(_, let waiters) = state { return waiters.count }
        return 0
    }

    /// The credential a new request can carry right away, changing nothing: the common case, answered without
    /// parking the request. `nil` means it must go through ``credentialForRequest(waiter:now:)``.
    func usableCredential(now: Date) -> Credential? {
        guard case .idle = state, let credential, !credential.isExpired(at: now, leeway: leeway) else { return nil }
        return credential
    }

    /// A request is about to be sent: which credential should it carry?
    mutating func credentialForRequest(waiter: WaiterID, now: Date) -> Action {
        switch state {
        case .refreshing(let round, var waiters):
            waiters.append(waiter)
            state = .refreshing(round, waiters: waiters)
            return .wait(round)
        case .failed:
            guard let credential else { return startRound(.initial, waiter: waiter, now: now) }
            return startRound(.previousFailure(generation: credential.generation), waiter: waiter, now: now)
        case .idle:
            guard let credential else { return startRound(.initial, waiter: waiter, now: now) }
            if credential.isExpired(at: now, leeway: leeway) {
                return startRound(.expired(generation: credential.generation), waiter: waiter, now: now)
            }
            return .use(credential)
        }
    }

    /// The server answered 401 to a request sent with `generation`: which credential should the retry carry?
    mutating func credentialAfterRejection(of generation: Int, waiter: WaiterID, now: Date) -> Action {
        switch state {
        case .refreshing(let round, var waiters):
            waiters.append(waiter)
            state = .refreshing(round, waiters: waiters)
            return .wait(round)
        case .failed(let error):
            // Sent before (or during) the round that failed: it shares that round's fate instead of starting a
            // storm of refreshes for the same bad credential.
            return .fail(error)
        case .idle:
            guard let credential else { return startRound(.initial, waiter: waiter, now: now) }
            if credential.generation > generation { return .use(credential) }
            return startRound(.rejected(generation: generation), waiter: waiter, now: now)
        }
    }

    /// The provider returned `fresh` for round `id`: adopt it as the next generation and wake the waiters.
    mutating func refreshSucceeded(_ fresh: Credential, round id: Int) -> (Credential, [WaiterID])? {
        guard case .refreshing(let round, let waiters) = state, round.id == id else { return nil }
        var adopted = fresh
        adopted.generation = (credential?.generation ?? 0) + 1
        credential = adopted
        state = .idle
        return (adopted, waiters)
    }

    /// The provider threw for round `id`: every waiter fails with one error.
    mutating func refreshFailed(_ error: any Error, round id: Int) -> (TokenRefreshError, [WaiterID])? {
        guard case .refreshing(let round, let waiters) = state, round.id == id else { return nil }
        let failure = TokenRefreshError(
            reason: .refreshFailed, underlyingError: error, round: id, rejectedGeneration: round.replacing?.generation)
        state = .failed(failure)
        return (failure, waiters)
    }

    /// A waiting request was cancelled: it leaves and the round goes on for the others. Returns the round it
    /// left, or `nil` when it had already been resumed (or never waited).
    mutating func cancel(_ waiter: WaiterID) -> Round? {
        guard case .refreshing(let round, var waiters) = state, let index = waiters.firstIndex(of: waiter) else {
            return nil
        }
        waiters.remove(at: index)
        state = .refreshing(round, waiters: waiters)
        return round
    }

    private mutating func startRound(_ trigger: Trigger, waiter: WaiterID, now: Date) -> Action {
        roundCount += 1
        // The initial load is not a refresh, so it neither counts towards nor is stopped by the limit.
        if trigger != .initial {
            recentRefreshes.removeAll { now.timeIntervalSince($0) >= limit.windowInterval }
            if recentRefreshes.count >= limit.maxRefreshes {
                let error = TokenRefreshError(
                    reason: .limitExceeded, underlyingError: nil, round: roundCount,
                    rejectedGeneration: credential?.generation)
                state = .failed(error)
                return .fail(error)
            }
            recentRefreshes.append(now)
        }
        let round = Round(id: roundCount, trigger: trigger, replacing: trigger == .initial ? nil : credential)
        state = .refreshing(round, waiters: [waiter])
        return .startRefreshAndWait(round)
    }
}
