import Foundation
import LoupeTrace
import LoupeTUI
import Testing

@Suite struct KeymapTests {
    /// A state in `context` where every command has something to do: many rows, selection in the middle,
    /// follow off, and (in detail) a long document scrolled to the middle.
    private func state(in context: KeyContext) -> InspectorState {
        var state = InspectorState(storeName: "test", size: Size(width: 80, height: 24), canReplay: true, timeZone: .gmt)
        let exchanges = (1...60).map { Fixture.exchange($0) }
        _ = state.update(.summariesLoaded(exchanges.map(\.summary), through: 60, total: 60))
        _ = state.update(.command(.toggleFollow))
        for _ in 0..<30 { _ = state.update(.command(.moveUp)) }
        if context == .detail {
            var long = Fixture.exchange(0, responseBody: Fixture.body((1...200).map { "line \($0)" }.joined(separator: "\n")))
            long.id = state.selectedSummary!.id
            _ = state.update(.command(.open))
            _ = state.update(.detailLoaded(long))
            for _ in 0..<40 { _ = state.update(.command(.moveDown)) }
        }
        if context == .help { _ = state.update(.command(.help)) }
        #expect(state.keyContext == context)
        return state
    }

    @Test func everyBindingRunsACommandThatUpdateHandles() {
        for binding in Keymap.standard.bindings {
            for context in binding.contexts {
                for key in binding.keys {
                    let before = state(in: context)
                    var after = before
                    let effects = after.update(.key(key))
                    #expect(after != before || !effects.isEmpty,
                            "\(key.label) → \(binding.command) did nothing in \(context)")
                }
            }
        }
    }

    @Test func everyCommandHasAKey() {
        let bound = Set(Keymap.standard.bindings.map(\.command))
        #expect(bound == Set(InspectorCommand.allCases))
    }

    @Test func noKeyIsBoundTwiceInOneContext() {
        for context in KeyContext.allCases {
            let keys = Keymap.standard.bindings(in: context).flatMap(\.keys)
            #expect(Set(keys).count == keys.count, "duplicate key in \(context)")
        }
    }

    @Test func qQuitsTheListButGoesBackFromDetail() {
        #expect(Keymap.standard.command(for: "q", in: .list) == .quit)
        #expect(Keymap.standard.command(for: "q", in: .detail) == .back)
        #expect(Keymap.standard.command(for: .escape, in: .help) == .back)
        #expect(Keymap.standard.command(for: "x", in: .list) == nil)
    }

    @Test func theHelpScreenListsEveryBinding() {
        var state = state(in: .list)
        _ = state.update(.key("?"))
        let text = InspectorRenderer.render(state).text
        for binding in Keymap.standard.bindings {
            #expect(text.contains(binding.keyLabel), "help lacks keys \(binding.keyLabel)")
            #expect(text.contains(binding.help), "help lacks \(binding.help)")
        }
    }

    @Test func helpOnASmallScreenSaysWhatItLeftOut() {
        var state = state(in: .list)
        _ = state.update(.resized(Size(width: 40, height: 8)))
        _ = state.update(.key("?"))
        let text = InspectorRenderer.render(state).text
        #expect(text.contains("more: enlarge"))
        #expect(text.contains("↑/k"))
    }

    @Test func theFooterShowsTheFooterBindingsOfTheContext() {
        for context in KeyContext.allCases {
            let footer = InspectorRenderer.render(state(in: context)).lines[23]
            for binding in Keymap.standard.footerBindings(in: context) {
                #expect(footer.contains("\(binding.footerKeyLabel) \(binding.title)"), "\(context) footer: \(footer)")
            }
        }
    }
}
