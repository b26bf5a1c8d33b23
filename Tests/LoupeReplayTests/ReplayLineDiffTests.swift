import Foundation
@testable import LoupeTrace
@testable import LoupeReplay
import Testing

@Suite("Replay diff: text by lines")
struct ReplayLineDiffTests {
    static func numbered(_ range: ClosedRange<Int>) -> [String] { range.map { "line \($0)" } }

    @Test("one changed line in the middle: a hunk with three lines of context each side")
    func middle() {
        var new = Self.numbered(1...10)
        new[4] = "line five"
        let diff = LineDiff(oldLines: Self.numbered(1...10), newLines: new)
        #expect(diff.removedCount == 1 && diff.insertedCount == 1)
        #expect(diff.hunks().map(\.lines) == [[
            "@@ -2,7 +2,7 @@", " line 2", " line 3", " line 4", "-line 5", "+line five", " line 6", " line 7", " line 8",
        ]])
        let difference = Difference(.body, .lines(diff))
        #expect(difference.description == "body: 1 line removed, 1 added")
        #expect(difference.detailLines.first == "@@ -2,7 +2,7 @@")
    }

    @Test("changes far apart make separate hunks; close ones share one")
    func separateHunks() {
        var new = Self.numbered(1...20)
        new[1] = "two"
        new[17] = "eighteen"
        let apart = LineDiff(oldLines: Self.numbered(1...20), newLines: new).hunks(context: 2)
        #expect(apart.map { $0.lines[0] } == ["@@ -1,4 +1,4 @@", "@@ -16,5 +16,5 @@"])
        var close = Self.numbered(1...20)
        close[5] = "six"
        close[9] = "ten"
        #expect(LineDiff(oldLines: Self.numbered(1...20), newLines: close).hunks(context: 2).map { $0.lines[0] } == ["@@ -4,9 +4,9 @@"])
    }

    @Test("insertions and deletions are aligned (Myers), not reported as every later line changed")
    func alignment() {
        let old = ["a", "b", "c", "d"]
        let new = ["a", "x", "b", "c"]
        let diff = LineDiff(oldLines: old, newLines: new)
        #expect(diff.steps == [.same(old: 0, new: 0), .inserted(new: 1), .same(old: 1, new: 2), .same(old: 2, new: 3), .removed(old: 3)])
        #expect(diff.hunks(context: 0).map(\.lines) == [["@@ -1,0 +2 @@", "+x"], ["@@ -4 +4,0 @@", "-d"]])
    }

    @Test("whole texts added or removed")
    func emptySides() {
        #expect(LineDiff(old: "", new: "a\nb\n").hunks().map(\.lines) == [["@@ -0,0 +1,2 @@", "+a", "+b"]])
        #expect(LineDiff(old: "a\n", new: "").hunks().map(\.lines) == [["@@ -1 +0,0 @@", "-a"]])
    }

    @Test("line endings: CRLF and a final newline do not make lines differ")
    func lineEndings() {
        #expect(LineDiff.lines("a\r\nb\r\n") == ["a", "b"])
        #expect(LineDiff.lines("a\nb") == ["a", "b"])
        #expect(LineDiff.lines("a\n\n") == ["a", ""])
        let diff = LineDiff(old: "a\r\nb\r\n", new: "a\nb")
        #expect(diff.isEmpty)
        #expect(Difference(.body, .lines(diff)).description == "body: same lines, different line endings or final newline")
        #expect(BodyDiff.differences(Data("a\r\nb\r\n".utf8), Data("a\nb".utf8)).map(\.description)
                == ["body: same lines, different line endings or final newline"])
    }

    @Test("texts too different to align are shown as removed then added, quickly")
    func coarse() {
        let old = (0..<3_000).map { "old \($0)" }
        let new = (0..<3_000).map { "new \($0)" }
        let diff = LineDiff(oldLines: ["same"] + old + ["end"], newLines: ["same"] + new + ["end"])
        #expect(diff.isCoarse)
        #expect(diff.removedCount == 3_000 && diff.insertedCount == 3_000)
        #expect(diff.steps.first == .same(old: 0, new: 0) && diff.steps.last == .same(old: 3_001, new: 3_001))
        #expect(!LineDiff(oldLines: Self.numbered(1...1_000), newLines: Self.numbered(2...1_001)).isCoarse)
    }

    @Test("bodies: JSON by structure, text by lines, binary by size")
    func bodies() {
        #expect(BodyDiff.differences(Data(#"{"a":1}"#.utf8), Data(#"{"a": 1}"#.utf8)) == [])
        #expect(BodyDiff.differences(Data("\"x\"".utf8), Data("\"y\"".utf8), oldType: "application/json", newType: "application/problem+json")
                .map(\.description) == [#"$: "x" → "y""#])
        #expect(BodyDiff.differences(Data("\"x\"".utf8), Data("\"y\"".utf8)).map(\.description) == ["body: 1 line removed, 1 added"])
        #expect(BodyDiff.differences(Data(#"{"a":1}"#.utf8), Data("{oops".utf8)).map(\.description) == ["body: 1 line removed, 1 added"])
        #expect(BodyDiff.differences(Data([0xFF, 0x00]), Data([0xFF, 0x01, 0x02])).map(\.description) == ["body: 2 bytes → 3 bytes (binary)"])
        #expect(BodyDiff.differences(Data([0xFF, 0x00]), Data([0xFF, 0x01])).map(\.description) == ["body: 2 bytes, contents differ (binary)"])
        #expect(BodyDiff.differences(Data([0xFF]), Data([0xFE])).map(\.description) == ["body: 1 byte, contents differ (binary)"])
    }
}
