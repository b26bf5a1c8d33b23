import Foundation
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// Free text asked for an auth scheme is answered from its blanks, and for a URL from one `:` to the next
/// (DECISIONS 53): both must answer exactly as the byte-by-byte matchers did, from any starting byte.
@Suite struct TextMarksFromBlanksTests {
    /// The matcher as it was, from `start` on (the fast-path suite's byte-by-byte reference).
    static func reference(_ bytes: [UInt8], from start: Int) -> Bool {
        RedactionFastPathTests.referenceAuthScheme(bytes, from: start)
    }

    @Test("from every starting byte of random texts, the blanks give the matcher's answer")
    func sameAnswerFromEveryStart() {
        var random = SeededGenerator(seed: 465)
        let pieces = ["a", "b", "B", "e", "4bf9", " ", "\t", "  ", "bearer", "Bearer ", "BASIC\t", "basic", "xbearer ",
                      "1basic ", "-bearer ", "bearer  x", "é", "r", "s", "c ", ":", "bas", "ic "]
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...14, using: &random)
            let text = (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                for start in 0...bytes.count {
                    #expect(RedactionPolicy.hasAuthScheme(in: buffer, from: start) == Self.reference(bytes, from: start),
                            "\(text.debugDescription) from \(start)")
                }
            }
        }
    }

    @Test("a word at the very end, a word one byte short of its blank, and blanks past a word's eight bytes")
    func edges() {
        for (text, expected) in [
            ("bearer", false), ("bearer ", true), ("basic ", false), ("basic x", true), ("xx basic\tx", true),
            ("abearer x", false), ("4bearer x", true), ("trace 4bf92f3577b34da6a3ce929d0e0e4736 bearer", false),
            ("4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", false), ("                Bearer t", true),
        ] {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                #expect(RedactionPolicy.hasAuthScheme(in: buffer, from: 0) == expected, "\(text)")
                #expect(Self.reference(bytes, from: 0) == expected, "\(text)")
            }
        }
    }

    @Test("a URL after many colons is still found and redacted, plain or JSON-escaped")
    func urlAfterManyColons() {
        let policy = RedactionPolicy()
        let colons = (0..<40).map { "\"k\($0)\":\($0)," }.joined()
        let plain = "{\(colons)\"next\":\"https://x.example/cb?access_token=abcdefgh12345678\"}"
        #expect(policy.redact(text: plain).contains("access_token=%5BREDACTED%5D"))
        let escaped = "{\(colons)\"next\":\"https:\\/\\/x.example\\/cb?access_token=abcdefgh12345678\"}"
        #expect(!policy.redact(text: escaped).contains("abcdefgh12345678"))
        // A `:` in the last two bytes cannot start a separator; one just before them can.
        #expect(!RedactionPolicy.containsScheme("abc:/"))
        #expect(RedactionPolicy.containsScheme("abc://"))
        #expect(!RedactionPolicy.containsScheme(String(repeating: ":", count: 50)))
    }
}
