/// Runs `count` jobs with at most `concurrency` in flight, starting them no faster than the pacer allows.
///
/// Progress is reported on the caller's task as each job finishes, in the order they finish. Cancelling the
/// calling task stops new starts and cancels the jobs in flight; the jobs that finished are still returned.
package struct ReplayScheduler<C: Clock<Duration>>: Sendable {
    package var concurrency: Int
    package var pacer: ReplayPacer
    package var clock: C

    package init(concurrency: Int, rate: Double? = nil, clock: C) {
        precondition(concurrency > 0, "concurrency must be positive")
        self.concurrency = concurrency
        pacer = ReplayPacer(rate: rate)
        self.clock = clock
    }

    private enum Event<Output: Sendable>: Sendable {
        /// The pacer's wait for the next start is over.
        case due
        case finished(Int, Output)
    }

    /// The outputs of the jobs that ran, by index.
    package func run<Output: Sendable>(
        count: Int, _ job: @escaping @Sendable (Int) async -> Output, progress: (Int, Output) -> Void = { _, _ in }
    ) async -> [(index: Int, output: Output)] {
        let clock = clock
        let start = clock.now
        return await withTaskGroup(of: Event<Output>.self) { group in
            var results: [(index: Int, output: Output)] = []
            var next = 0
            var inFlight = 0
            var waiting = false
            while true {
                // Start what the slots and the pacer allow; wait for the pacer in a child task, so finished jobs
                // are reported while it waits.
                while next < count, inFlight < concurrency, !waiting, !Task.isCancelled {
                    let due = start.advanced(by: pacer.offset(of: next))
                    if due > clock.now {
                        group.addTask {
                            try? await clock.sleep(until: due, tolerance: nil)
                            return .due
                        }
                        waiting = true
                    } else {
                        let index = next
                        group.addTask { .finished(index, await job(index)) }
                        next += 1
                        inFlight += 1
                    }
                }
                guard let event = await group.next() else { break }
                switch event {
                case .due:
                    waiting = false
                case .finished(let index, let output):
                    inFlight -= 1
                    results.append((index, output))
                    progress(index, output)
                }
            }
            return results.sorted { $0.index < $1.index }
        }
    }
}
