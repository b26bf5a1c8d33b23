import Foundation
import LoupeContract
import LoupeQuery
import LoupeTrace
import Synchronization

/// The inspector's OpenAPI contract (`loupe tui --openapi`): every exchange of the store checked once, oldest
/// first, and each verdict kept by exchange, for the list's drift mark and the filter terms only the contract
/// answers (`~drift`, `~op` by the contract's path templates).
///
/// Checking reads whole exchanges (bodies included), so it never runs on the render path: the app starts
/// ``startCatchingUp(store:)`` on a thread of its own after each poll that saw the store change, and the loop
/// redraws when ``version`` moves. Only what the list and the filter need is kept (the operation's name and the
/// drifting exchanges' findings), so memory grows with the store's operations and drift, not with its bodies.
package final class ContractChecks: Sendable {
    package let contract: Contract
    private let state = Mutex(State())
    /// Exchanges read and checked per store read.
    package static let batchSize = 500

    private struct State {
        var operations: [UUID: String] = [:]
        var findings: [UUID: [ContractFinding]] = [:]
        var checkedThrough = Int64.min
        var version = 0
        var running = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    package init(contract: Contract) {
        self.contract = contract
    }

    /// Moves each time verdicts were added: the loop redraws, and re-reads a filter that asks the contract.
    package var version: Int { state.withLock { $0.version } }

    /// The findings of an exchange that drifts; nil when it does not, matches no operation, or is not checked yet.
    package func findings(of id: UUID) -> [ContractFinding]? {
        state.withLock { $0.findings[id] }
    }

    /// The operation the contract's path templates match the exchange to, once it is checked.
    package func operation(of id: UUID) -> String? {
        state.withLock { $0.operations[id] }
    }

    /// Whether the exchange was checked and drifts.
    package func drifts(_ id: UUID) -> Bool {
        state.withLock { $0.findings[id] != nil }
    }

    /// Checks the exchanges stored since the last call, one batch.
    /// - Returns: Whether there were any (call again until there are none).
    @discardableResult
    package func catchUp(store: any TraceStore) throws -> Bool {
        let after = state.withLock { $0.checkedThrough }
        let summaries = try store.summaries(after: after, limit: Self.batchSize)
        guard let last = summaries.last?.sequence else { return false }
        var operations: [(UUID, String)] = []
        var drifting: [(UUID, [ContractFinding])] = []
        for summary in summaries {
            guard let exchange = try store.exchange(id: summary.id) else { continue }
            let verdict = contract.check(exchange)
            if let name = verdict.operation { operations.append((summary.id, name)) }
            if verdict.drifts { drifting.append((summary.id, verdict.findings)) }
        }
        state.withLock { state in
            for (id, name) in operations { state.operations[id] = name }
            for (id, findings) in drifting { state.findings[id] = findings }
            state.checkedThrough = max(state.checkedThrough, last)
            state.version += 1
        }
        return true
    }

    /// Checks everything stored so far, here and now.
    package func catchUpAll(store: any TraceStore) throws {
        while try catchUp(store: store) {}
    }

    /// Checks what arrived on a thread of its own (lowered priority, as the rank counts), unless one is at it.
    package func startCatchingUp(store: any TraceStore) {
        let start = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        let thread = Thread { [self] in
            #if canImport(Glibc)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            #endif
            // A failed read is tried again after the next poll: the list reports the store's problems itself.
            while (try? catchUp(store: store)) == true {}
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.running = false
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        thread.name = "loupe.contract"
        thread.start()
    }

    /// Returns once the background checks started so far are done (for tests).
    package func idle() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if !state.running { return true }
                state.waiters.append(done)
                return false
            }
            if now { done.resume() }
        }
    }

    /// `filter` with the contract's answers in place of the terms it answers: `~drift [KIND]` becomes the
    /// exchanges that drift (with a finding of that kind), and `~op NAME` also takes the exchanges the contract's
    /// path templates name so (those recorded without an operation). Also returns the ``version`` answered.
    package func resolve(_ filter: TraceFilter) -> (filter: TraceFilter, version: Int) {
        state.withLock { state in (Self.resolve(filter, state), state.version) }
    }

    /// Walks `&` and `|` chains in a loop, so a long chain costs no stack; recursion follows the brackets.
    private static func resolve(_ filter: TraceFilter, _ state: State) -> TraceFilter {
        switch filter {
        case .drift(let kind):
            let ids = state.findings.compactMap { id, findings in
                kind.map { kind in findings.contains { $0.isCovered(by: kind) } } ?? true ? id : nil
            }
            return .exchanges(Set(ids))
        case .operation(let name):
            let ids = state.operations.compactMap { $0.value == name ? $0.key : nil }
            return ids.isEmpty ? filter : .or(filter, .exchanges(Set(ids)))
        case .not(let inner):
            return .not(resolve(inner, state))
        case .and:
            let parts = filter.conjuncts.map { resolve($0, state) }
            return parts.dropFirst().reduce(parts[0]) { .and($0, $1) }
        case .or:
            let parts = filter.disjuncts.map { resolve($0, state) }
            return parts.dropFirst().reduce(parts[0]) { .or($0, $1) }
        default:
            return filter
        }
    }
}
