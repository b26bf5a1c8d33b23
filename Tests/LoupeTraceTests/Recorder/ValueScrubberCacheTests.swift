@testable import LoupeTrace
import Testing

@Suite("Value scrubber cache")
struct ValueScrubberCacheTests {
    /// Consecutive exchanges with one credential share a scrubber; a different set of values never reuses it.
    @Test func reusesOnlyForTheSameValues() throws {
        let first = try #require(ValueScrubberCache.scrubber(values: ["token-AAAA-1111"], minimumLength: 6))
        let again = try #require(ValueScrubberCache.scrubber(values: ["token-AAAA-1111"], minimumLength: 6))
        let other = try #require(ValueScrubberCache.scrubber(values: ["token-BBBB-2222"], minimumLength: 6))
        #expect(first.scrub("x token-AAAA-1111 y") == again.scrub("x token-AAAA-1111 y"))
        #expect(first.scrub("x token-AAAA-1111 y") != "x token-AAAA-1111 y")
        #expect(other.scrub("x token-AAAA-1111 y") == "x token-AAAA-1111 y")
        #expect(other.scrub("x token-BBBB-2222 y") != "x token-BBBB-2222 y")
        #expect(ValueScrubberCache.scrubber(values: [], minimumLength: 6) == nil)
    }

    /// More sets than the cache holds still scrub correctly (older entries are evicted, not confused).
    @Test func evictionKeepsAnswersRight() throws {
        for index in 0..<40 {
            let secret = "secret-value-\(index)-xyz"
            let scrubber = try #require(ValueScrubberCache.scrubber(values: [secret], minimumLength: 6))
            #expect(!scrubber.scrub("before \(secret) after").contains(secret))
        }
    }
}
