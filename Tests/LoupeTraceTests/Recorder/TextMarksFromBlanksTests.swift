import Foundation
@testable import LoupeTrace
import Testing

/// Free text asked for an auth scheme is answered from its blanks, and for a URL from one `:` to the next
/// (DECISIONS 465): both must answer exactly as the byte-by-byte matchers did, from any starting byte.
@Suite struct TextMarksFromBlanksTests {
    /// The matcher as it was: every byte from `start` on, a `b` not after a letter, the word, then a blank.
    static func reference(_ bytes: [UInt8], from start: Int) -> Bool {
        var index = start
        while index + 6 < bytes.count {
            if bytes[index] | 0x20 == UInt8(ascii: "b"), index == 0 || !ASCIIBytes.isLetter(bytes[index - 1]) {
                for word in ["bearer", "basic"] {
                    let letters = Array(word.utf8)
                    guard index + letters.count < bytes.count,
                          (0..<letters.count).allSatisfy({ bytes[index + $0] | 0x20 == letters[$0] }),
                          bytes[index + letters.count] == 0x20 || bytes[index + letters.count] == 0x09 else { continue }
                    return true
                }
            }
            index += 1
        }
        return false
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
