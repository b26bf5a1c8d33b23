import ArgumentParser
import Foundation
@testable import loupe
import LoupeTUI
import Testing

/// `loupe tui`'s own parts that need no terminal: the keymap it builds from the user's keys.toml, and its options.
@Suite("loupe tui")
struct TUICommandTests {
    /// A temporary `$HOME` whose `~/.config/loupe/keys.toml` holds `text` (no file when `text` is nil).
    final class Home {
        let path = NSTemporaryDirectory() + "loupe-tui-" + UUID().uuidString
        var environment: [String: String] { ["HOME": path] }
        var file: String { path + "/.config/loupe/keys.toml" }

        init(_ text: String?) throws {
            try FileManager.default.createDirectory(atPath: path + "/.config/loupe", withIntermediateDirectories: true)
            if let text { try Data(text.utf8).write(to: URL(fileURLWithPath: file)) }
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func keymap() throws -> Keymap { try TUICommand.keymap(path: file, environment: environment) }
    }

    @Test("without a keys.toml the standard keymap is used")
    func noFile() throws {
        #expect(try Home(nil).keymap() == Keymap.standard)
    }

    @Test("a keys.toml that rebinds a command moves it to the new key, and only in its section")
    func rebinds() throws {
        let keymap = try Home("[exchanges]\nfilter = \"ctrl-f\"\n[global]\nhelp = \"h\"\n").keymap()
        #expect(keymap != Keymap.standard)
        #expect(keymap.command(for: .ctrl("f"), in: .exchanges) == .filter)
        #expect(keymap.command(for: "f", in: .exchanges) == nil, "the default key is given up")
        #expect(keymap.command(for: "f", in: .detail) == .filter, "other sections keep the default")
        #expect(keymap.command(for: "h", in: .exchanges) == .help)
        #expect(keymap.command(for: "h", in: .detail) == .help)
        #expect(keymap.footerBindings(in: .exchanges).first { $0.command == .filter }?.footerKeyLabel == "^F")
    }

    @Test("an unknown command or section is one loupe: line naming the file, section and name, exit 2")
    func unknownNames() throws {
        let home = try Home("[exchanges]\nfliter = \"f\"\n")
        let failure = try #require(throws: CommandFailure.self) { try home.keymap() }
        #expect(failure.code == 2)
        // The line number (`:2`) is welcome but not required: KeysFile.position can place the name later.
        let pattern = #"^~/\.config/loupe/keys\.toml(:2)?: \[exchanges\] fliter: unknown command 'fliter'$"#
        #expect(failure.message.range(of: pattern, options: .regularExpression) != nil, "\(failure.message)")
        #expect(LoupeCommand.report(for: failure) == .failure(line: "loupe: " + failure.message, code: 2))
        let section = try #require(throws: CommandFailure.self) { try Home("[flws]\nfilter = \"f\"\n").keymap() }
        #expect(section.message.range(of: #"^~/\.config/loupe/keys\.toml(:1)?: unknown section '\[flws\]'"#,
                                      options: .regularExpression) != nil, "\(section.message)")
        #expect(!section.message.contains("\n"))
    }

    @Test("a mistake the file reader finds (a bad key name) is a badInput line too")
    func badKeyName() throws {
        let failure = try #require(throws: CommandFailure.self) { try Home("[exchanges]\nfilter = \"nope\"\n").keymap() }
        #expect(failure.code == 2)
        #expect(failure.message == "~/.config/loupe/keys.toml:2: unknown key 'nope' for 'filter'")
    }

    @Test("tui parses a store, --filter and --no-mouse; the mouse is on by default")
    func options() throws {
        let plain = try #require(try LoupeCommand.parseAsRoot(["tui"]) as? TUICommand)
        #expect(plain.noMouse == false)
        #expect(plain.store == nil)
        let full = try #require(try LoupeCommand.parseAsRoot(["tui", "/tmp/s.sqlite", "--no-mouse", "--filter", "~m POST"])
                                as? TUICommand)
        #expect(full.noMouse == true)
        #expect(full.store == "/tmp/s.sqlite")
        #expect(full.filter == "~m POST")
        #expect(throws: (any Error).self) { try LoupeCommand.parseAsRoot(["tui", "--no-mouse=yes"]) }
    }
}
