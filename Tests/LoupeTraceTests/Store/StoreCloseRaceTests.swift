import Foundation
import Loupe
@testable import LoupeQuery
import LoupeTesting
@testable import LoupeTrace
import Synchronization
import Testing
@testable import LoupeTestSupport

/// Closing a store while other threads read and write it: each call either finishes or throws a store error,
/// and none reaches SQLite with a closed connection (GRDB's own close let a read that had not yet taken a
/// connection run on a closed one: a SIGSEGV in `sqlite3_get_autocommit(NULL)`, seen once in four CI runs).
@Suite("Store close races")
struct StoreCloseRaceTests {
    @Test func readsAndWritesRacingCloseFinishOrThrowAndNeverCrash() async throws {
        // The rounds block on semaphores, so they run on a thread of their own, not on the tests' shared pool.
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            Thread { done.resume(with: Result { try Self.race(rounds: 12) }) }.start()
        }
    }

    private static func race(rounds: Int) throws {
        for round in 0..<rounds {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let store = try SQLiteTraceStore(path: folder.file("traces.sqlite"))
            try store.write((0..<20).map { Fixture.simple($0) })
            let finished = Atomic<Int>(0)
            let refused = Atomic<Int>(0)
            let started = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for worker in 0..<4 {
                DispatchQueue.global().async(group: group) {
                    started.signal()
                    for n in 0..<200 {
                        do {
                            if worker == 0 {
                                try store.write([Fixture.simple(n)])
                            } else {
                                _ = try store.count()
                                _ = try store.recent(limit: 5)
                            }
                            finished.add(1, ordering: .relaxed)
                        } catch is TraceStoreError {
                            refused.add(1, ordering: .relaxed)
                        } catch {
                            Issue.record("round \(round): not a store error: \(error)")
                        }
                    }
                }
            }
            for _ in 0..<4 { started.wait() }
            try store.close()
            group.wait()
            #expect(finished.load(ordering: .relaxed) + refused.load(ordering: .relaxed) == 800)
            // After close every call is refused with a store error; closing again does nothing.
            #expect(throws: TraceStoreError.self) { try store.count() }
            #expect(throws: TraceStoreError.self) { try store.write([Fixture.simple(0)]) }
            try store.close()
        }
    }
}
