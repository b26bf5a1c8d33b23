import Foundation
import LoupeTrace
import LoupeTUI
import Testing

/// The key table: every binding runs a command that works where it is bound, no key is bound twice in one
/// context, and a user's overrides replace defaults in the help and footer too.
@Suite struct KeymapTests {
    @Test(arguments: KeyContext.allCases)
    func noKeyIsBoundTwiceInOneContext(_ context: KeyContext) {
        var seen: [Key: Command] = [:]
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
    @Test(arguments: [KeyContext.exchanges, .detail, .help])
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
        for command in Command.allCases {
            #expect(Command(name: command.name) == command)
            #expect(!command.summary.isEmpty && command.summary != command.name)
        }
        #expect(Command.sortNext.name == "sort-next")
    }

    /// The exchanges list was the flows list: a keys.toml written then keeps working (former names, still read),
    /// and the new names are the ones shown and completed.
    @Test func aKeysFileWithTheFormerNamesStillApplies() throws {
        let keymap = try Keymap.standard.applying([
            KeyOverride(context: "flows", command: "filter", keys: [.ctrl("f")]),  // former names
            KeyOverride(context: "circuit-history", command: "flows-for-key", keys: ["F"]),  // former name
            KeyOverride(context: "global", command: "flows", keys: ["0"]),  // former name
        ])
        #expect(keymap.command(for: .ctrl("f"), in: .exchanges) == .filter)
        #expect(keymap.command(for: "F", in: .circuitHistory) == .exchangesForKey)
        #expect(keymap.command(for: "0", in: .metrics) == .exchanges)
        #expect(Command.exchanges.name == "exchanges" && Command.exchangesForKey.name == "exchanges-for-key")
        #expect(!Command.allCases.map(\.name).contains { $0.hasPrefix("flows") }, "former names are never offered")
    }

    @Test func anOverrideReplacesTheDefaultKeysAndTakesItsKeysFromOthers() throws {
        let keymap = try Keymap.standard.applying([
            KeyOverride(context: "exchanges", command: "filter", keys: [.ctrl("f")]),
            KeyOverride(context: "global", command: "help", keys: ["h"]),
        ])
        #expect(keymap.command(for: .ctrl("f"), in: .exchanges) == .filter)
        #expect(keymap.command(for: "f", in: .exchanges) == nil)
        #expect(keymap.command(for: "f", in: .detail) == .filter, "other contexts keep the default")
        #expect(keymap.command(for: .pageDown, in: .exchanges) == .pageDown, "page down keeps its other keys")
        #expect(keymap.command(for: "h", in: .detail) == .help, "h no longer goes back in detail")
        #expect(keymap.command(for: .escape, in: .detail) == .back)
        #expect(keymap.footerBindings(in: .exchanges).first { $0.command == .filter }?.footerKeyLabel == "^F")
        for context in KeyContext.allCases {
            var seen = Set<Key>()
            for key in keymap.bindings(in: context).flatMap(\.keys) { #expect(seen.insert(key).inserted) }
        }
    }

    @Test func theHelpAndFooterFollowTheUserKeymap() throws {
        let keymap = try Keymap.standard.applying([KeyOverride(context: "exchanges", command: "filter", keys: ["F"])])
        let app = TUIApp(store: try Fixture.store([Fixture.exchange(1)]), storeName: "s", replayer: nil,
                               timeZone: .gmt, keymap: keymap, history: InMemoryPromptHistory())
        let screen = InMemoryTerminal()
        app.refresh()
        app.turn(on: screen)
        #expect(screen.lines[23].hasPrefix("Enter open  F filter"))
        screen.press("?")
        app.turn(on: screen)
        #expect(screen.text.contains("  F                  Filter the whole store"))
    }

    /// Help texts and hints name keys from the keymap in use: rebound in keys.toml, the new key is the one they
    /// name (they used to say `o`, `n`, `m` and `M` whatever the user had bound).
    @Test func helpTextsAndHintsNameTheReboundKeys() throws {
        let keymap = try Keymap.standard.applying([
            KeyOverride(context: "exchanges", command: "sort-next", keys: ["z"]),
            KeyOverride(context: "exchanges", command: "search-next", keys: ["i"]),
            KeyOverride(context: "exchanges", command: "mark", keys: ["X"]),
            KeyOverride(context: "exchanges", command: "show-marked", keys: ["Y"]),
            KeyOverride(context: "exchanges", command: "filter", keys: [.ctrl("f")]),
        ])
        let app = TUIApp(store: try Fixture.store([Fixture.exchange(1)]), storeName: "s", replayer: nil,
                               timeZone: .gmt, keymap: keymap, history: InMemoryPromptHistory())
        let screen = InMemoryTerminal()
        app.refresh()
        app.turn(on: screen)
        screen.press("Y")
        app.turn(on: screen)
        #expect(screen.lines[22].contains("nothing is marked: X marks the selected exchange"), "\(screen.lines[22])")
        screen.press(.paste("text"))
        app.turn(on: screen)
        #expect(screen.lines[22].contains("open one first (^F, / or :)"), "\(screen.lines[22])")
        screen.press("?")
        app.turn(on: screen)
        // The help wraps long lines: compared with runs of spaces and line breaks as one space.
        let help = screen.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("Jump to the first row (in the order shown: z, v change it)"), "\(screen.text)")
        #expect(help.contains("Find text in the URL, method or operation (i, N: next, previous)"))
        #expect(!help.contains("o, v change it"))
    }

    @Test func aHintIsTheKeyHereElseOnAnotherScreenElseTheCommand() throws {
        let keymap = try Keymap.standard.applying([
            KeyOverride(context: "exchanges", command: "edit-replay", keys: ["E"]),
            KeyOverride(context: "detail", command: "edit-replay", keys: ["E"]),
            KeyOverride(context: "metrics", command: "cycle-window", keys: ["W"]),
        ])
        #expect(keymap.hint(.cycleWindow, in: .metrics) == "W")
        #expect(keymap.hint(.editReplay, in: .rules) == "E", "not bound on the rules screen: the exchanges list's key")
        #expect(keymap.hint(.link, in: .exchanges) == ":link", "no key anywhere: the command")
        let edit = try #require(keymap.bindings(in: .rules).first { $0.command == .editRule })
        #expect(keymap.help(of: edit, in: .rules) == "Edit the selected rule as TOML, or the held request as E edits one")
        #expect(Keymap.standard.help(of: edit, in: .rules).hasSuffix("as e edits one"))
        #expect(keymap.filling("{cycle-window} {nothing} {edit-replay", in: .metrics) == "W {nothing} {edit-replay")
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
        #expect(problem(KeyOverride(context: "exchanges", command: "fliter", keys: ["f"])) == "[exchanges] fliter: unknown command 'fliter'")
        #expect(problem(KeyOverride(context: "lists", command: "filter", keys: ["f"])).hasPrefix("unknown section '[lists]'"))
        #expect(problem(KeyOverride(context: "prompt", command: "submit", keys: ["x"]))
                == "[prompt] submit: 'x' types text in prompts and cannot be bound there")
        #expect(problem(KeyOverride(context: "exchanges", command: "submit", keys: [.ctrl("j")]))
                == "[exchanges] submit: 'submit' only works in [prompt]")
    }
}
