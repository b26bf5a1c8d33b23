import LoupeFilter
@testable import LoupeTUI
import Testing

/// Tab at the filter prompt completes every term the parser reads (`~served`, `~src` and `~rule` were missing).
@Suite struct FilterCompletionTests {
    @Test func everyTermTheParserReadsIsCompleted() {
        #expect(CommandCompletion.candidates(for: "~s", kind: .filter, before: []) == ["~src", "~served", "~since"])
        #expect(CommandCompletion.candidates(for: "~un", kind: .filter, before: []) == ["~until"])
        #expect(CommandCompletion.candidates(for: "~ru", kind: .filter, before: []) == ["~rule"])
        #expect(CommandCompletion.candidates(for: "~r", kind: .filter, before: []) == ["~replay", "~rule"])
        #expect(CommandCompletion.filterOperators.count == TraceFilterParser.termNames.count)
    }
}
