import Foundation
@testable import LoupeCompare
import Testing

/// The statistics against answers worked out independently (by hand, or by ranking every value one by one).
@Suite("Comparison statistics")
struct StatisticsTests {
    static func counted(_ values: [Double]) -> [(value: Double, count: Int)] {
        Dictionary(grouping: values, by: { $0 }).map { (value: $0.key, count: $0.value.count) }.sorted { $0.value < $1.value }
    }

    @Test("the normal distribution's quantiles and tails")
    func normal() {
        #expect(abs(NormalDistribution.quantile(0.975) - 1.959964) < 1e-6)
        #expect(abs(NormalDistribution.quantile(0.995) - 2.575829) < 1e-6)
        #expect(abs(NormalDistribution.quantile(0.001) + 3.090232) < 1e-6)
        #expect(abs(NormalDistribution.cdf(1.959964) - 0.975) < 1e-6)
        #expect(abs(NormalDistribution.twoSided(1.959964) - 0.05) < 1e-6)
        #expect(NormalDistribution.twoSided(.nan) == 1)
    }

    @Test("Mann–Whitney U: every pair ordered")
    func rankSeparated() throws {
        let test = try #require(RankTest(Self.counted((1...8).map(Double.init)), Self.counted((9...16).map(Double.init))))
        #expect(test.u == 64)
        #expect(test.superiority == 1)
        #expect(abs(test.z - 3.308161698516173) < 1e-9)
        #expect(abs(test.pValue - 0.0009391056991171905) < 1e-9)
    }

    @Test("Mann–Whitney U with ties, against ranking each value")
    func rankTies() throws {
        let a: [Double] = [1, 2, 2, 3, 4, 5, 6, 7, 8, 9], b: [Double] = [3, 5, 6, 7, 8, 9, 10, 11, 12, 12]
        let test = try #require(RankTest(Self.counted(a), Self.counted(b)))
        #expect(test.u == 81)
        #expect(abs(test.z - 2.3125488096414917) < 1e-9)
        #expect(abs(test.pValue - 0.020747458781943385) < 1e-9)
        // The other way round: the same evidence, the other direction.
        let reversed = try #require(RankTest(Self.counted(b), Self.counted(a)))
        #expect(abs(reversed.z + test.z) < 1e-9)
    }

    @Test("Mann–Whitney U: too few, or all tied, is no evidence")
    func rankDegenerate() throws {
        #expect(RankTest(Self.counted([1, 2, 3]), Self.counted((1...20).map(Double.init))) == nil)
        let tied = try #require(RankTest([(5, 10)], [(5, 12)]))
        #expect(tied.pValue == 1)
    }

    @Test("a percentile's interval from the order statistics")
    func quantile() throws {
        let values = Self.counted((1...100).map(Double.init))
        let median = try #require(QuantileInterval(values, percent: 50, confidence: 0.99))
        // n·p = 50 ± 2.5758·√25 = 12.88: ranks 37 and 64.
        #expect(median.estimate == 50)
        #expect(median.lower == 37)
        #expect(median.upper == 64)
        let tail = try #require(QuantileInterval(values, percent: 99, confidence: 0.99))
        #expect(tail.estimate == 99)
        #expect(tail.upper == 100)
        #expect(QuantileInterval([], percent: 50, confidence: 0.99) == nil)
        #expect(median.isDisjoint(from: tail))
        let shifted = try #require(QuantileInterval(Self.counted((10...110).map(Double.init)), percent: 50, confidence: 0.99))
        #expect(!median.isDisjoint(from: shifted))
        #expect(QuantileInterval(Self.counted((200...300).map(Double.init)), percent: 50, confidence: 0.99)!.isDisjoint(from: median))
    }

    @Test("two proportions")
    func proportions() throws {
        let test = try #require(ProportionTest(hitsA: 10, countA: 100, hitsB: 20, countB: 100))
        // Pooled 0.15: z = 0.1 / √(0.15 · 0.85 · 0.02) = 1.9803.
        #expect(abs(test.z - 1.98029508) < 1e-6)
        #expect(abs(test.pValue - 0.0476705) < 1e-5)
        #expect(ProportionTest(hitsA: 0, countA: 50, hitsB: 0, countB: 50)?.pValue == 1)
        #expect(ProportionTest(hitsA: 0, countA: 0, hitsB: 1, countB: 5) == nil)
    }
}
