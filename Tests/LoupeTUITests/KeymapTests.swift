import Foundation
import LoupeTrace
import LoupeTUI
import Testing

/// The key table: every binding runs a command that works where it is bound, no key is bound twice in one
/// context, and a user's overrides replace defaults in the help and footer too.
@Suite struct KeymapTests {
    @Test(arguments: KeyContext.allCases)
    func noKeyIsBoundTwiceInOneContext(_ context: KeyContext) {
        var seen: [Key: InspectorCommand] = [:]
        for binding in Keymap.standard.bindings(in: context) {
            for key in binding.keys {
                #expect(seen[key] == nil, "\(key.label) is bound to \(seen[key]?.name ?? "") and \(binding.command.name) in \(context)")
                seen[key] = binding.command
            }
        }
    }

    @Test func promptsBindNoPrintableKeyAndOnlyEditingCommands() {
        for binding in Keymap.standard.bindings(in: .prompt) {
            #expect(binding.command.isTextEditing)
            #expect(!binding.keys.contains { if case .char = $0 { true } else { false } })
        }
        for context in KeyContext.screens {
            #expect(!Keymap.standard.bindings(in: context).contains { $0.command.isTextEditing })
        }
    }

    /// Each key does something where it is bound: running it never answers "not available on this screen".
    @Test(arguments: [KeyContext.flows, .detail, .help])
    func everyBindingRunsWhereItIsBound(_ context: KeyContext) throws {
        for binding in Keymap.standard.bindings(in: context) where binding.command != .quit {
            let (app, screen) = Fixture.app(try Fixture.store([Fixture.exchange(1), Fixture.exchange(2)]),
                                            replayer: FakeReplayer())
            if context == .detail { screen.press(.enter) }
            if context == .help { screen.press("?") }
            app.turn(on: screen)
            #expect(app.state.top.keyContext == context)
            app.handle(binding.keys[0])
            #expect(app.state.status.map { !$0.text.contains("not available") } ?? true,
                    "\(binding.keyLabel) → \(binding.command.name) in \(context): \(app.state.status?.text ?? "")")
        }
    }

    @Test func commandNamesRoundTrip() {
        for command in InspectorCommand.allCases {
            #expect(InspectorCommand(name: command.name) == command)
            #expect(!command.summary.isEmpty && command.summary != command.name)
        }
        #expect(InspectorCommand.sortNext.name == "sort-next")
    }

    @Test func anOverrideReplacesTheDefaultKeysAndTakesItsKeysFromOthers() throws {
        let keymap = try Keymap.standard.applying([
            KeyOverride(context: "flows", command: "filter", keys: [.ctrl("f")]),
            KeyOverride(context: "global", command: "help", keys: ["h"]),
        ])
        #expect(keymap.command(for: .ctrl("f"), in: .flows) == .filter)
        #expect(keymap.command(for: "f", in: .flows) == nil)
        #expect(keymap.command(for: "f", in: .detail) == .filter, "other contexts keep the default")
        #expect(keymap.command(for: .pageDown, in: .flows) == .pageDown, "page down keeps its other keys")
        #expect(keymap.command(for: "h", in: .detail) == .help, "h no longer goes back in detail")
        #expect(keymap.command(for: .escape, in: .detail) == .back)
        #expect(keymap.footerBindings(in: .flows).first { $0.command == .filter }?.footerKeyLabel == "^F")
        for context in KeyContext.allCases {
            var seen = Set<Key>()
            for key in keymap.bindings(in: context).flatMap(\.keys) { #expect(seen.insert(key).inserted) }
        }
    }

    @Test func theHelpAndFooterFollowTheUserKeymap() throws {
        let keymap = try Keymap.standard.applying([KeyOverride(context: "flows", command: "filter", keys: ["F"])])
        let app = InspectorApp(store: try Fixture.store([Fixture.exchange(1)]), storeName: "s", replayer: nil,
                               timeZone: .gmt, keymap: keymap, history: InMemoryPromptHistory())
        let screen = InMemoryScreen()
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines[23].hasPrefix("Enter open  F filter"))
        screen.press("?")
        app.turn(on: screen)
        #expect(screen.text.contains("  F                  Filter the whole store"))
    }

    @Test func badOverridesSayWhatIsWrong() {
        func problem(_ override: KeyOverride) -> String {
            do {
                _ = try Keymap.standard.applying([override])
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(problem(KeyOverride(context: "flows", command: "fliter", keys: ["f"])) == "[flows] fliter: unknown command 'fliter'")
        #expect(problem(KeyOverride(context: "lists", command: "filter", keys: ["f"])).hasPrefix("unknown section '[lists]'"))
        #expect(problem(KeyOverride(context: "prompt", command: "submit", keys: ["x"]))
                == "[prompt] submit: 'x' types text in prompts and cannot be bound there")
        #expect(problem(KeyOverride(context: "flows", command: "submit", keys: [.ctrl("j")]))
                == "[flows] submit: 'submit' only works in [prompt]")
    }
}
