import Testing
@testable import loupe

/// A bracketed paste is read in bulk (DECISIONS 165): the end marker is found wherever a read put it, and a chunk
/// that stops inside the marker or inside a character keeps those bytes for the next one.
@Suite struct PasteChunkTests {
    private let end = Array("\u{1B}[201~".utf8)

    @Test func theEndMarkerIsFoundAfterTextAndOtherEscapes() {
        let bytes = Array("a\u{1B}b\u{1B}[20".utf8) + end + Array("q".utf8)
        #expect(CursesTerminal.endMarker(in: bytes) == 7..<13)
        #expect(CursesTerminal.endMarker(in: Array("a\u{1B}[201".utf8)) == nil)
    }

    @Test func aChunkKeepsAStartOfTheMarkerOrOfACharacter() {
        let text = Array("abc".utf8)
        #expect(CursesTerminal.unfinishedTail(of: text) == 3)
        #expect(CursesTerminal.unfinishedTail(of: text + end.prefix(4)) == 3, "a cut end marker waits for its rest")
        let euro = Array("€".utf8)  // three bytes
        #expect(CursesTerminal.unfinishedTail(of: text + euro.prefix(2)) == 3, "a cut character waits for its rest")
        #expect(CursesTerminal.unfinishedTail(of: text + euro) == 6)
        #expect(CursesTerminal.unfinishedTail(of: text + [0x1B]) == 3)
    }
}
