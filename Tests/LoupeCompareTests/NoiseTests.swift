import Foundation
import Loupe
@testable import LoupeCompare
import LoupeQuery
import LoupeTrace
import Testing

/// Thresholds and noise on groups built from figures, and a side read from a store held in memory (a HAR file).
@Suite("Compare: thresholds and noise")
struct NoiseTests {
    static func group(_ durations: [Double], errors: Int = 0, body: String? = nil) -> GroupFigures {
        var group = GroupFigures()
        for (index, duration) in durations.enumerated() {
            group.add(ExchangeFigures(sequence: Int64(index), id: UUID(), operation: "op", host: "h", status: index < errors ? 500 : 200,
                                      outcome: index < errors ? .httpError : .success, duration: duration, attempts: 1,
                                      responseSize: 10, jsonBody: body.map { Data($0.utf8) }))
        }
        return group
    }

    static let base = (0..<2_000).map { 0.100 + Double($0 % 100) / 1_000 }

    @Test("a change smaller than the threshold is unchanged; larger, regressed")
    func threshold() {
        let a = Self.group(Self.base)
        let slower = Self.group(Self.base.map { $0 * 1.2 })
        #expect(GroupComparison.compare(kind: .operation, name: "op", a: a, b: slower, thresholds: CompareThresholds(), groups: 1).verdict == .regressed)
        #expect(GroupComparison.compare(kind: .operation, name: "op", a: a, b: slower, thresholds: CompareThresholds(latency: 0.3), groups: 1).verdict == .unchanged)
        let faster = Self.group(Self.base.map { $0 * 0.7 })
        let improved = GroupComparison.compare(kind: .operation, name: "op", a: a, b: faster, thresholds: CompareThresholds(), groups: 1)
        #expect(improved.verdict == .improved)
        #expect(improved.reasons.first?.hasPrefix("p50 -30%") == true)
    }

    @Test("a tail of a few durations is not judged; nor an error rate of a few exchanges")
    func smallSamples() {
        let a = Self.group([0.003, 0.003, 0.003, 0.068, 0.068, 0.068]), b = Self.group([0.003, 0.003, 0.003, 0.003, 0.003, 0.003])
        let small = GroupComparison.compare(kind: .operation, name: "op", a: a, b: b, thresholds: CompareThresholds(), groups: 1)
        #expect(small.verdict == .unchanged)
        #expect(small.percentiles.allSatisfy { !$0.isSignificant })
        let errors = GroupComparison.compare(kind: .operation, name: "op", a: Self.group(Array(repeating: 0.1, count: 7)),
                                             b: Self.group(Array(repeating: 0.1, count: 7), errors: 5), thresholds: CompareThresholds(), groups: 1)
        #expect(errors.verdict == .unchanged)
    }

    @Test("what two baseline runs differ by is noise")
    func noise() {
        let a = Self.group(Self.base), b = Self.group(Self.base.map { $0 * 1.2 })
        let baselineNoise = GroupComparison.compare(kind: .operation, name: "op", a: a, b: Self.group(Self.base.map { $0 * 1.15 }),
                                                    thresholds: CompareThresholds(latency: 0, errorRatePoints: 0), groups: 1)
        let withNoise = GroupComparison.compare(kind: .operation, name: "op", a: a, b: b, thresholds: CompareThresholds(), groups: 1,
                                                noise: baselineNoise)
        #expect(withNoise.verdict == .unchanged)
        let errorsA = Self.group(Self.base, errors: 100), errorsB = Self.group(Self.base, errors: 300)
        #expect(GroupComparison.compare(kind: .operation, name: "op", a: errorsA, b: errorsB, thresholds: CompareThresholds(), groups: 1).verdict == .regressed)
        let errorNoise = GroupComparison.compare(kind: .operation, name: "op", a: errorsA, b: Self.group(Self.base, errors: 350),
                                                 thresholds: CompareThresholds(latency: 0, errorRatePoints: 0), groups: 1)
        #expect(GroupComparison.compare(kind: .operation, name: "op", a: errorsA, b: errorsB, thresholds: CompareThresholds(), groups: 1,
                                        noise: errorNoise).verdict == .unchanged)
        // A shape path that moved between the baselines is not drift.
        let shapeA = Self.group(Self.base, body: #"{"id":1,"at":"x"}"#), shapeB = Self.group(Self.base, body: #"{"id":1,"at":null}"#)
        let shapeNoise = GroupComparison.compare(kind: .operation, name: "op", a: shapeA, b: shapeB, thresholds: CompareThresholds(), groups: 1)
        #expect(shapeNoise.verdict == .regressed)
        #expect(GroupComparison.compare(kind: .operation, name: "op", a: shapeA, b: shapeB, thresholds: CompareThresholds(), groups: 1,
                                        noise: shapeNoise).verdict == .unchanged)
    }

    @Test("operations past the cap share one group, so a store of distinct names stays bounded")
    func groupCap() {
        var side = SideFigures()
        for index in 0..<1_200 {
            side.add(ExchangeFigures(sequence: Int64(index), id: nil, operation: "op\(index)", host: "h", status: 200, outcome: .success,
                                     duration: 0.1, attempts: 1, responseSize: nil, jsonBody: nil))
        }
        #expect(side.operations.count == SideFigures.maximumGroups + 1)
        #expect(side.operations[SideFigures.otherGroup]?.count == 200)
        #expect(side.hosts["h"]?.count == 1_200)
    }

    @Test("new and gone operations; a side read from memory")
    func newAndGone() throws {
        let store = InMemoryTraceStore()
        try store.write([
            TraceExchange(id: UUID(), sequence: 1, operation: "list", method: "GET", url: "https://a.test/x",
                          startedAt: Date(timeIntervalSince1970: 0), endedAt: Date(timeIntervalSince1970: 0.2), outcome: .success),
            TraceExchange(id: UUID(), sequence: 2, operation: "create", method: "POST", url: "https://a.test/y",
                          startedAt: Date(timeIntervalSince1970: 1), endedAt: nil, outcome: .shortCircuited),
        ])
        let side = try SideFigures.read(store, filter: nil)
        #expect(side.total == 2)
        #expect(side.operations["create"]?.refusals == 1)
        #expect(side.hosts["a.test"]?.count == 2)
        let onlyList = try SideFigures.read(store, filter: .method("GET"))
        let comparison = Comparison(a: side, b: onlyList)
        #expect(comparison.operations.map(\.verdict) == [.gone, .unchanged])
        #expect(!comparison.hasRegression)
        #expect(Comparison(a: onlyList, b: side).operations.first?.verdict == .new)
    }
}
