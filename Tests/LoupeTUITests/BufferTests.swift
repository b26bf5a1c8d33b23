import LoupeTUI
import Testing

@Suite struct BufferTests {
    @Test func writesAndClipsToTheWidth() {
        var buffer = Buffer(size: Size(width: 10, height: 2))
        let end = buffer.write("hello world", x: 2, y: 0)
        #expect(end == 10)
        #expect(buffer.lines == ["  hello wo", "          "])
        #expect(buffer.write("abc", x: 0, y: 1, maxWidth: 2) == 2)
        #expect(buffer.text == "  hello wo\nab")
    }

    @Test func writesOutsideTheBufferAreIgnored() {
        var buffer = Buffer(size: Size(width: 4, height: 1))
        buffer.write("x", x: 0, y: 5)
        buffer.write("y", x: 9, y: 0)
        buffer.write("abcdef", x: -2, y: 0)
        #expect(buffer.lines == ["cdef"])
    }

    @Test func wideCharactersTakeTwoCells() {
        var buffer = Buffer(size: Size(width: 8, height: 1))
        let end = buffer.write("日本x", x: 0, y: 0)
        #expect(end == 5)
        #expect(buffer[0, 0].character == "日")
        #expect(buffer[1, 0].isContinuation)
        #expect(buffer[4, 0].character == "x")
        #expect(buffer.lines == ["日本x   "])
        #expect(DisplayWidth.of(buffer.lines[0]) == 8)
    }

    @Test func aWideCharacterThatDoesNotFitBecomesASpace() {
        var buffer = Buffer(size: Size(width: 5, height: 1))
        buffer.fill(buffer.area, with: "-")
        buffer.write("ab🎉", x: 0, y: 0, maxWidth: 3)
        #expect(buffer.lines == ["ab --"])
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var buffer = Buffer(size: Size(width: 4, height: 1))
        buffer.write("日本", x: 0, y: 0)
        buffer.write("x", x: 1, y: 0)
        #expect(buffer.lines == [" x本"])
        buffer.write("y", x: 2, y: 0)
        #expect(buffer.lines == [" xy "])
        #expect(!buffer[3, 0].isContinuation)
    }

    @Test func controlCharactersAreShownAsPictures() {
        var buffer = Buffer(size: Size(width: 12, height: 1))
        buffer.write("a\u{1B}[31m\u{0}\u{7F}\u{85}", x: 0, y: 0)
        #expect(buffer.lines == ["a␛[31m␀␡\u{FFFD}   "])
    }

    @Test func zeroWidthAndBidiControlsAreNotWritten() {
        var buffer = Buffer(size: Size(width: 6, height: 1))
        buffer.write("a\u{202E}b\u{200B}c", x: 0, y: 0)
        #expect(buffer.lines == ["abc   "])
    }

    @Test func combiningMarksStayWithTheirBase() {
        var buffer = Buffer(size: Size(width: 3, height: 1))
        buffer.write("e\u{301}x", x: 0, y: 0)
        #expect(buffer[0, 0].character == "e\u{301}")
        #expect(buffer[1, 0].character == "x")
    }

    @Test func setStyleRestylesWithoutChangingText() {
        var buffer = Buffer(size: Size(width: 3, height: 2))
        buffer.write("abc", x: 0, y: 1, style: .dim)
        buffer.setStyle(.selection, in: Rect(x: 0, y: 1, width: 2, height: 1))
        #expect(buffer[0, 1].style == .selection)
        #expect(buffer[2, 1].style == .dim)
        #expect(buffer.lines[1] == "abc")
    }

    @Test func anEmptyBufferIsSafe() {
        var buffer = Buffer(size: Size(width: 0, height: 0))
        buffer.write("x", x: 0, y: 0)
        buffer.fill(Rect(x: 0, y: 0, width: 5, height: 5))
        #expect(buffer.lines.isEmpty)
        #expect(buffer[3, 3] == .blank)
    }
}

@Suite struct DisplayWidthTests {
    @Test(arguments: [
        ("abc", 3), ("日本語", 6), ("🎉", 2), ("e\u{301}", 1), ("a\u{200B}b", 2), ("🇯🇵", 2), ("ｈｉ", 4),
        ("\u{1B}", 1), ("한국", 4), ("Zoë", 3),
    ])
    func measures(_ text: String, _ width: Int) {
        #expect(DisplayWidth.of(text) == width)
    }

    @Test func truncatesWithAnEllipsisByColumns() {
        #expect(DisplayWidth.truncate("hello", to: 5) == "hello")
        #expect(DisplayWidth.truncate("hello!", to: 5) == "hell…")
        #expect(DisplayWidth.truncate("日本語", to: 4) == "日…")
        #expect(DisplayWidth.truncate("abc", to: 0) == "")
        #expect(DisplayWidth.pad("日", to: 4) == "日  ")
        #expect(DisplayWidth.pad("7", to: 3, alignRight: true) == "  7")
    }
}
