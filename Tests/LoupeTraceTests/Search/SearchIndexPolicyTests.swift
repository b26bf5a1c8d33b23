@testable import LoupeTrace
import Testing

@Suite("When a writer indexes the rows it wrote")
struct SearchIndexPolicyTests {
    static let policy = SearchIndexPolicy(maxRows: 100, maxDelay: .seconds(5), quiet: .seconds(1))

    @Test("a few rows wait for the writer to turn idle; a full batch is indexed at once")
    func rowsAndIdle() {
        var policy = Self.policy
        #expect(policy.tick(at: .zero) == .none)  // nothing written: no timer
        #expect(policy.rowsWritten(10, at: .seconds(2)) == .tick(at: .seconds(3)))
        #expect(policy.tick(at: .milliseconds(2_999)) == .tick(at: .seconds(3)))
        #expect(policy.tick(at: .seconds(3)) == .index)
        policy.caughtUp()
        #expect(policy.tick(at: .seconds(4)) == .none)
        #expect(policy.rowsWritten(99, at: .seconds(10)) == .tick(at: .seconds(11)))
        #expect(policy.rowsWritten(1, at: .seconds(10)) == .index)
        #expect(policy.rowsWritten(0, at: .seconds(10)) == .index)  // still due until a run catches up
    }

    @Test("a steady trickle never idles the writer: its oldest row is indexed after the longest delay")
    func trickle() {
        var policy = Self.policy
        var actions: [SearchIndexPolicy.Action] = []
        for step in 0..<11 {
            actions.append(policy.rowsWritten(1, at: .milliseconds(500 * step)))
        }
        #expect(actions.prefix(10).allSatisfy { if case .tick = $0 { true } else { false } })
        #expect(actions[0] == .tick(at: .seconds(1)))
        #expect(actions[9] == .tick(at: .seconds(5)))  // the oldest's deadline comes before 4.5 s + 1 s
        #expect(actions[10] == .index)  // 5 s after the first row
    }

    @Test("closing indexes what waits; a policy that waits for the close sets no due time before it")
    func closing() {
        var policy = Self.policy
        #expect(policy.closing() == .none)
        _ = policy.rowsWritten(3, at: .zero)
        #expect(policy.closing() == .index)
        policy.caughtUp()
        #expect(policy.closing() == .none)

        var onClose = SearchIndexPolicy.onClose
        guard case .tick(let time) = onClose.rowsWritten(1_000_000, at: .seconds(1_000)) else {
            Issue.record("a policy that waits for the close indexed before it")
            return
        }
        #expect(time > .seconds(1_000_000_000))
        #expect(onClose.tick(at: .seconds(1_000_000)) != .index)
        #expect(onClose.closing() == .index)
    }

    @Test("a row committed while a run is under way is reported after it and waits for the next")
    func rowsDuringRun() {
        var policy = Self.policy
        #expect(policy.rowsWritten(100, at: .zero) == .index)
        policy.caughtUp()  // the run's last transaction
        #expect(policy.rowsWritten(1, at: .milliseconds(10)) == .tick(at: .milliseconds(1_010)))
        #expect(policy.closing() == .index)
    }

    @Test("limits below one are raised to one; counts that would overflow saturate")
    func bounds() {
        var policy = SearchIndexPolicy(maxRows: 0, maxDelay: .seconds(-1), quiet: .seconds(-1))
        #expect(policy.maxRows == 1 && policy.maxDelay == .zero && policy.quiet == .zero)
        #expect(policy.rowsWritten(1, at: .zero) == .index)
        var big = Self.policy
        _ = big.rowsWritten(.max, at: .zero)
        #expect(big.rowsWritten(.max, at: .zero) == .index)
    }
}
