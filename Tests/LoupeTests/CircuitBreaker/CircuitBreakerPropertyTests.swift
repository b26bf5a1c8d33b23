import Loupe
import PropertyBased
import Testing

@Suite struct CircuitBreakerPropertyTests {
    static let scenarios = zip(
        Gen.bool, Gen.int(in: 1...12), Gen.int(in: 1...12), Gen.int(in: 1...100), Gen.int(in: 1...100),
        Gen.int(in: 1...3), Gen.int(in: 1...10), Gen.int(in: 1...5)
    ).map { value in
        BreakerScenario(
            windowIsCount: value.0, windowSize: value.0 ? value.1 : (value.1 + 1) / 2, minimumCalls: value.2,
            failureThreshold: value.3, slowThreshold: value.4, slowDuration: .seconds(value.5),
            wait: .seconds(value.6), permitted: value.7)
    }
    static let sequences = Gen.int(in: 0...99_999).array(of: 1...200)

    /// The proof: 10,000 random call sequences, zero divergences from the reference model.
    @Test func stateMachineAgreesWithTheReferenceModel() async {
        var sequencesRun = 0
        var divergences = 0
        var coverage: [String: Int] = [:]
        await propertyCheck(count: 10_000, input: Self.scenarios, Self.sequences) { scenario, codes in
            let check = BreakerModelCheck(scenario, codes: codes)
            sequencesRun += 1
            divergences += check.divergences.count
            coverage.merge(check.coverage, uniquingKeysWith: +)
            #expect(check.divergences.isEmpty, "\(scenario): \(check.divergences.prefix(3))")
        }
        #expect(sequencesRun == 10_000)
        #expect(divergences == 0)
        // The sequences must actually explore: every transition and rejection kind, many times over (a typical
        // run sees each of these 1,000 to 70,000 times).
        for kind in ["closed→open", "closed→open (time window)", "open→half-open", "half-open→closed", "half-open→open",
                     "reject open", "reject half-open", "reject forced-open", "forced-open→closed", "disabled→closed",
                     "stale outcome"] {
            #expect(coverage[kind, default: 0] >= 300, "\(kind) seen only \(coverage[kind, default: 0]) times")
        }
    }

    /// The harness must be able to fail: each planted one-line bug in the model is caught within 2,000 sequences.
    @Test(arguments: [ReferenceCircuitBreaker.Mutation.halfOpenAllowsOneMore, .strictFailureThreshold, .countsStaleOutcomes])
    func harnessCatchesAPlantedBug(_ mutation: ReferenceCircuitBreaker.Mutation) async {
        var caught = 0
        await propertyCheck(count: 2_000, input: Self.scenarios, Self.sequences) { scenario, codes in
            if !BreakerModelCheck(scenario, codes: codes, mutation: mutation).divergences.isEmpty { caught += 1 }
        }
        #expect(caught > 0)
    }
}
