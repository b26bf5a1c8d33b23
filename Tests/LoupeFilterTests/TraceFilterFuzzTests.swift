import Foundation
@testable import LoupeTrace
@testable import LoupeFilter
import PropertyBased
import Testing

@Suite("TraceFilter fuzzing")
struct TraceFilterFuzzTests {
    /// Pieces of filters, broken filters and awkward characters, glued at random.
    static let tokens = [
        "~m", "~c", "~d", "~u", "~h", "~b", "~op", "~dur", "~att", "~cb", "~e", "~replay", "~x", "~", "~M",
        " ", " ", "  ", "\t", "(", ")", "!", "&", "|", "\"", "'", "\\", "GET", "post", "503", "5xx", "5-", "999-1",
        ">", ">=", "<", "=", "500ms", "1.5s", "1e", "2", "open", "half-open", "closed", "example.com", "users",
        "[", "*", "a|b", "(?i)", "é", "e\u{301}", "\u{301}", "👩‍💻", "\n", "0", "ms",
    ]

    static let soup = Gen<String?>.element(of: tokens).map { $0 ?? "" }.array(of: 0...16).map { $0.joined() }
    static let printable = Gen.character(in: " "..."~").string(of: 0...40)

    /// Checks one input: it parses (and then its canonical text parses back to it, for ASCII input) or it fails
    /// with a position inside the text or just after it.
    static func check(_ text: String) throws {
        let length = text.count
        switch Result(catching: { () throws(TraceFilterError) in try TraceFilter.parse(text) }) {
        case .success(let filter):
            _ = filter.matches(TraceFilterMatchingTests.failed)
            // Outside ASCII, gluing text to a quote or space can merge graphemes, so only ASCII must round-trip.
            if text.allSatisfy(\.isASCII) {
                #expect(try TraceFilter.parse(filter.description) == filter, "\(text) → \(filter.description)")
            }
        case .failure(let error):
            #expect((1...(length + 1)).contains(error.position), "\(text): \(error)")
            #expect(error.description.contains(String(error.position)), "\(text): \(error)")
            #expect(!error.expected.isEmpty)
        }
    }

    @Test("random token soups never crash, and either parse or fail at a valid position")
    func tokenSoup() async {
        await propertyCheck(count: 2000, input: Self.soup) { text in try Self.check(text) }
    }

    @Test("random printable strings never crash, and either parse or fail at a valid position")
    func printableStrings() async {
        await propertyCheck(count: 2000, input: Self.printable) { text in try Self.check(text) }
    }
}
