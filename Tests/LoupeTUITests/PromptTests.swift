import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import LoupeFormats
import LoupeTUI
import Testing

/// Prompts: readline editing, history, live filter validation, the `:` command line with Tab completion, export.
@Suite struct PromptTests {
    @Test func readlineEditing() {
        var input = TextInput("~c 500 ~m GET")
        input.apply(.deleteWord)
        #expect(input.text == "~c 500 ~m ")
        input.apply(.cursorStart)
        input.insert("!")
        #expect(input.text == "!~c 500 ~m " && input.cursor == 1)
        input.apply(.cursorRight)
        input.apply(.deleteToEnd)
        #expect(input.text == "!~")
        input.apply(.deleteToStart)
        #expect(input.text == "" && input.cursor == 0)
        input.apply(.deleteBackward)
        input.apply(.cursorLeft)
        #expect(input.text == "" && input.cursor == 0)
        input.insert("\u{1B}")
        #expect(input.text.isEmpty, "control characters are not text")
        input.set(String(repeating: "a", count: TextInput.limit + 10))
        #expect(input.characters.count == TextInput.limit)
    }

    @Test func historyWalksBackAndReturnsToTheDraft() {
        var prompt = Prompt(.filter, text: "draft", history: ["~c 500", "~m POST"])
        prompt.olderEntry()
        #expect(prompt.input.text == "~m POST")
        prompt.olderEntry()
        prompt.olderEntry()
        #expect(prompt.input.text == "~c 500")
        prompt.newerEntry()
        prompt.newerEntry()
        #expect(prompt.input.text == "draft")
    }

    @Test func theFilterPromptMarksTheErrorAndRefusesEnterUntilFixed() throws {
        let history = InMemoryPromptHistory(["filter": ["~m DELETE"]])
        let (app, screen) = appWith(history: history)
        screen.type("f~c 9x")
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "prompt-filter-error")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(app.state.prompt != nil, "Enter does not apply a broken filter")
        screen.press(.ctrl("u"))
        screen.type("~c 5xx")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(app.state.prompt == nil)
        #expect(app.state.session.filterText == "~c 5xx")
        #expect(app.state.exchanges.window.total == 1)
        #expect(history.entries(for: "filter") == ["~m DELETE", "~c 5xx"])
        screen.press("f", .ctrl("u"), .up, .up, .enter)
        app.turn(on: screen)
        #expect(app.state.session.filterText == "~m DELETE")
        screen.press("f", .ctrl("u"), .enter)
        app.turn(on: screen)
        #expect(app.state.session.filter == nil, "an empty filter clears it")
        #expect(app.state.exchanges.window.total == 4)
    }

    @Test func tabCompletesCommandsAndTheirArguments() throws {
        let (app, screen) = appWith()
        screen.type(":so")
        screen.press(.tab)
        app.turn(on: screen)
        ScreenSnapshot.check(screen, "prompt-command-completions")
        screen.type(" d")
        screen.press(.tab)
        app.turn(on: screen)
        #expect(app.state.prompt?.input.text == "sort duration ")
        screen.type("desc")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(app.state.session.order == ExchangeOrder(.duration, descending: true))
        screen.type(":nonsense")
        screen.press(.enter)
        app.turn(on: screen)
        #expect(screen.lines[22].contains("unknown command 'nonsense'"))
        screen.type(":quit")
        screen.press(.enter)
        #expect(!app.turn(on: screen))
    }

    @Test func exportWritesAHARThatImportReadsBack() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (app, screen) = appWith()
        screen.press("g", "m", "m", "x")
        app.turn(on: screen)
        #expect(app.state.prompt?.input.text.hasPrefix("export marked har loupe-export-") == true)
        let path = folder.appendingPathComponent("two.har").path
        screen.press(.ctrl("u"))
        screen.type("export marked har \(path)")
        screen.press(.enter)
        app.turn(on: screen)
        await app.settle()
        app.turn(on: screen)
        #expect(screen.lines[22].contains("wrote 2 exchanges as HAR"))
        let imported = try HARImporter().exchanges(contentsOf: URL(fileURLWithPath: path))
        #expect(imported.map(\.url) == ["https://api.example.com/users/1", "https://api.example.com/orders"])
        // The same path again is refused, and the file is left alone.
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        app.apply(.command(.export, argument: "marked har \(path)"))
        await app.settle()
        #expect(app.state.status?.text.contains("already exists") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func exportingCurlCopiesItToTheClipboard() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (app, screen) = appWith()
        app.apply(.command(.export, argument: "selected curl \(folder.appendingPathComponent("c.sh").path)"))
        await app.settle()
        app.turn(on: screen)
        #expect(screen.clipboard.count == 1)
        #expect(screen.clipboard.first?.hasPrefix("curl") == true)
        screen.press("C")
        app.turn(on: screen)
        #expect(screen.clipboard.count == 2)
        #expect(screen.lines[22].contains("copied curl"))
    }

    private func appWith(history: InMemoryPromptHistory = InMemoryPromptHistory()) -> (TUIApp, InMemoryTerminal) {
        let store = try! Fixture.store(ExchangesScreenTests.exchanges)
        let app = TUIApp(store: store, storeName: "/tmp/traces.sqlite", replayer: nil, timeZone: .gmt,
                               keymap: .standard, history: history)
        let screen = InMemoryTerminal(width: 80, height: 24)
        app.refresh()
        app.turn(on: screen)
        return (app, screen)
    }
}
