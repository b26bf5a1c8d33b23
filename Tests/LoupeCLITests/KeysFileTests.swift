import Foundation
@testable import loupe
import LoupeConfig
import LoupeTUI
import Testing

@Suite("keys.toml")
struct KeysFileTests {
    /// A temporary folder standing in for `$HOME`, with `~/.config/loupe/keys.toml` written from `text`.
    final class Home {
        let path = NSTemporaryDirectory() + "loupe-keys-" + UUID().uuidString
        var environment: [String: String] { ["HOME": path] }
        var file: String { path + "/.config/loupe/keys.toml" }

        init(_ text: String? = nil) throws {
            try FileManager.default.createDirectory(atPath: path + "/.config/loupe", withIntermediateDirectories: true)
            if let text { try Data(text.utf8).write(to: URL(fileURLWithPath: file)) }
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func load() throws(CommandFailure) -> [KeyOverride] {
            try KeysFile.load(path: KeysFile.defaultPath(environment: environment), environment: environment)
        }

        /// The one error line the file gives.
        func failure() -> String? {
            do {
                _ = try load()
                return nil
            } catch {
                #expect(error.code == 2)
                return error.message
            }
        }
    }

    @Test("the documented example loads: a string or a list per command, sorted by context and command")
    func example() throws {
        let home = try Home("""
            # bindings per context; a command bound here loses its default keys in that context
            [global]
            quit = "Q"
            [exchanges]
            filter = ["f", "ctrl-f"]
            order = []
            'mark' = ["m", "space", "m"]
            """)
        #expect(try home.load() == [
            KeyOverride(context: "exchanges", command: "filter", keys: ["f", .ctrl("f")]),
            KeyOverride(context: "exchanges", command: "mark", keys: ["m", " "]),
            KeyOverride(context: "exchanges", command: "order", keys: []),
            KeyOverride(context: "global", command: "quit", keys: ["Q"]),
        ])
    }

    @Test("no file, or an empty one, means no overrides")
    func missing() throws {
        #expect(try Home().load() == [])
        #expect(try Home("").load() == [])
        #expect(try Home("# nothing yet\n").load() == [])
    }

    @Test("XDG_CONFIG_HOME wins when absolute; ~/.config otherwise")
    func location() {
        #expect(KeysFile.defaultPath(environment: ["HOME": "/home/ada"]) == "/home/ada/.config/loupe/keys.toml")
        #expect(KeysFile.defaultPath(environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/etc/xdg/"])
                == "/etc/xdg/loupe/keys.toml")
        #expect(KeysFile.defaultPath(environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "conf"])
                == "/home/ada/.config/loupe/keys.toml")
    }

    @Test("an unknown key name names the file, the line, the key and the command")
    func unknownKey() throws {
        let home = try Home("""
            [exchanges]
            quit = "q"
            filter = ["f", "ctrl-ä"]
            """)
        #expect(home.failure() == "~/.config/loupe/keys.toml:3: unknown key 'ctrl-ä' for 'filter'")
        let dotted = try Home("exchanges.filter = \"ctrl-\"\n")
        #expect(dotted.failure() == "~/.config/loupe/keys.toml:1: unknown key 'ctrl-' for 'filter'")
        #expect(try Home("[exchanges]\nfilter = \" f\"\n").failure()?.hasSuffix(":2: unknown key ' f' for 'filter'") == true)
    }

    @Test("a TOML syntax error gives TOMLKit's line")
    func syntax() throws {
        let home = try Home("[exchanges]\nfilter = \"f\"\nsearch = [\"/\"\n\n")
        let message = try #require(home.failure())
        #expect(message.hasPrefix("~/.config/loupe/keys.toml:"))
        #expect(message.range(of: #"^~/\.config/loupe/keys\.toml:[34]: \S"#, options: .regularExpression) != nil, "\(message)")
        #expect(!message.contains("\n"))
        #expect(try Home("[exchanges\n").failure()?.hasPrefix("~/.config/loupe/keys.toml:1: ") == true)
        #expect(try Home("[exchanges]\nfilter = \"f\"\nfilter = \"g\"\n").failure()?.hasPrefix("~/.config/loupe/keys.toml:3: ") == true)
    }

    @Test("values of the wrong type say what is expected, with the line")
    func wrongTypes() throws {
        let expected = "must be a key name or a list of key names, like \"f\" or [\"f\", \"ctrl-f\"]"
        #expect(try Home("[exchanges]\n\nfilter = 3\n").failure() == "~/.config/loupe/keys.toml:3: 'filter' in [exchanges] \(expected)")
        #expect(try Home("[exchanges]\nfilter = [\"f\", 1]\n").failure() == "~/.config/loupe/keys.toml:2: 'filter' in [exchanges] \(expected)")
        #expect(try Home("[exchanges]\nfilter = { key = \"f\" }\n").failure() == "~/.config/loupe/keys.toml:2: 'filter' in [exchanges] \(expected)")
        #expect(try Home("quit = \"q\"\n").failure() == "~/.config/loupe/keys.toml:1: 'quit' must be a [quit] section of bindings")
        #expect(try Home("[[exchanges]]\nfilter = \"f\"\n").failure()
                == "~/.config/loupe/keys.toml: 'exchanges' must be a [exchanges] section of bindings")
    }

    @Test("one key given to two commands in one section is refused; across sections it is the keymap's call")
    func conflicts() throws {
        #expect(try Home("[exchanges]\nfilter = \"f\"\nfollow = [\"F\", \"f\"]\n").failure()
                == "~/.config/loupe/keys.toml:3: key 'f' is given to both 'filter' and 'follow' in [exchanges]")
        #expect(try Home("[exchanges]\nfilter = \"f\"\n[detail]\nsearch = \"f\"\n").load().count == 2)
    }

    @Test("files too large, not UTF-8, holding NUL, or not regular files are refused in one line")
    func hostileFiles() throws {
        let big = try Home(String(repeating: "# padding\n", count: 7000))
        #expect(big.failure() == "~/.config/loupe/keys.toml: larger than 64 KiB; a keymap file is a few lines")
        let fits = try Home(String(repeating: "#", count: 64 * 1024 - 1) + "\n")
        #expect(try fits.load() == [])

        let latin1 = try Home()
        try Data([0x5B, 0x66, 0x5D, 0x0A, 0xE4, 0x0A]).write(to: URL(fileURLWithPath: latin1.file))
        #expect(latin1.failure() == "~/.config/loupe/keys.toml: not UTF-8 text")
        #expect(try Home("[exchanges]\nfilter = \"f\"\u{0}\n").failure() == "~/.config/loupe/keys.toml:2: contains a NUL byte")

        let folder = try Home()
        try FileManager.default.createDirectory(atPath: folder.file, withIntermediateDirectories: false)
        #expect(folder.failure() == "~/.config/loupe/keys.toml: is a directory, not a regular file")
        let fifo = try Home()
        #expect(mkfifo(fifo.file, 0o600) == 0)
        // Would block in open(2) without O_NONBLOCK.
        #expect(fifo.failure() == "~/.config/loupe/keys.toml: is not a regular file")
    }

    @Test("a file outside the home folder is named in full, and the error reaches stderr as one loupe: line")
    func reporting() throws {
        let home = try Home("[exchanges]\nfilter = \"nope\"\n")
        do {
            _ = try KeysFile.load(path: home.file, environment: ["HOME": "/elsewhere"])
            Issue.record("expected a failure")
        } catch {
            #expect(error.message == "\(home.file):2: unknown key 'nope' for 'filter'")
            #expect(LoupeCommand.report(for: error) == .failure(line: "loupe: \(home.file):2: unknown key 'nope' for 'filter'", code: 2))
        }
    }
}

extension KeysFileTests {
    @Test("names the keymap rejects later are placed at their line too")
    func position() throws {
        let home = try Home("[global]\nquit = \"Q\"\n\n[exchanges]\nfitler = \"f\"\n")
        #expect(KeysFile.position(context: "exchanges", command: "fitler", path: home.file, environment: home.environment)
                == "~/.config/loupe/keys.toml:5")
        #expect(KeysFile.position(context: "exchanges", command: nil, path: home.file, environment: home.environment)
                == "~/.config/loupe/keys.toml:4")
        #expect(KeysFile.position(context: "nowhere", command: "x", path: home.file, environment: home.environment)
                == "~/.config/loupe/keys.toml")
    }
}

extension KeysFileTests {
    /// Each of these aborts the process inside toml++ 3.4.0 (TOMLKit 0.6.0) unless refused first.
    @Test("malformed headers and lists that crash the TOML parser get a clear line instead", arguments: [
        ("[é]", 1, "a [section] name"), ("[exchanges]\nquit = \"q\"\n  [.]", 3, "a [section] name"),
        ("[[[a]]]", 1, "a [section] name"), ("[&", 1, "a [section] name"), ("[[ [", 1, "a [section] name"),
        ("[[\n", 1, "a [section] name"), ("[=]", 1, "a [section] name"), ("[\u{1}]", 1, "a [section] name"),
        ("a = [}", 1, "saw '}'"), ("[f]\na = [\"f\",\n  # c\n }", 4, "saw '}'"), ("a = {b=[}]}", 1, "saw '}'"),
    ])
    func parserCrashes(text: String, line: Int, reason: String) throws {
        let message = try #require(try Home(text).failure())
        #expect(message.hasPrefix("~/.config/loupe/keys.toml:\(line): "), "\(message)")
        #expect(message.contains(reason), "\(message)")
    }

    @Test("the same characters inside strings and comments are left to the parser")
    func guardFollowsStrings() throws {
        let home = try Home("""
            # [é] and a = [} in a comment
            [exchanges]  # [é]
            filter = ["}", '[', "\\"}"]
            "search" = '''
            ['''
            [ "quoted.section" ]
            quit = "q"
            """)
        // Parsed through to the key names: "}" and "[" are keys, `"}` is not.
        #expect(home.failure() == "~/.config/loupe/keys.toml:3: unknown key '\"}' for 'filter'")
        #expect(try Home("[exchanges]\nfilter = ['}', \"[\"]\n").load()
                == [KeyOverride(context: "exchanges", command: "filter", keys: ["}", "["])])
        // A line starting `[é` inside a multi-line string is not a header.
        #expect(try Home("[exchanges]\nfilter = 'f'\nsearch = \'\'\'\n[é]\'\'\'\n").failure()
                == "~/.config/loupe/keys.toml:3: unknown key '[é]' for 'search'")
    }

    @Test("random TOML-shaped garbage never crashes the parser (seeded)")
    func fuzz() {
        var generator = SplitMix64(seed: 0x10_0BE)
        let pieces = ["[", "]", "{", "}", "=", ".", ",", "\"", "'", "#", "\n", " ", "\t", "a", "b", "1", "é", "-", "_",
                      "\"\"\"", "'''", "\\", "+", "0x", "e", ":", "T", "[[", "]]", "f = ", "[exchanges]\n"]
        var refused = 0
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 1...14, using: &generator))
                .map { _ in pieces.randomElement(using: &generator)! }.joined()
            do {
                _ = try KeysFileParser.overrides(in: Data(text.utf8))
            } catch {
                refused += 1
                #expect(error.line.map { $0 >= 1 } ?? true)
                #expect(!error.reason.contains("\n"))
            }
        }
        #expect(refused > 15_000)
    }
}

/// A small seeded generator, so the fuzz test sees the same inputs on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension KeysFileTests {
    @Test("a long name in an error is cut at 40 characters")
    func longNames() throws {
        let name = String(repeating: "x", count: 5000)
        #expect(try Home("[exchanges]\nfilter = \"\(name)\"\n").failure()
                == "~/.config/loupe/keys.toml:2: unknown key '\(String(repeating: "x", count: 40))…' for 'filter'")
    }
}

extension KeysFileTests {
    /// 30,000 dotted parts in 60 KB (under the size cap) overflowed toml++'s recursion: SIGSEGV, not an error.
    @Test("keys and sections too deep for the parser's recursion are refused in one line before parsing", arguments: [
        (String(repeating: "a.", count: 30_000) + "a = 1\n", 1, "more than 16 dotted parts"),
        ("[exchanges]\n[" + String(repeating: "a.", count: 30_000) + "a]\n", 2, "more than 16 dotted parts"),
        ("x = {" + String(repeating: "b.", count: 20) + "c = 1}\n", 1, "more than 16 dotted parts"),
        ("[exchanges]\nfilter = " + String(repeating: "[", count: 20_000) + "\n", 2, "nested more than 16 deep"),
        ("x = " + String(repeating: "{a = ", count: 10_000) + "\n", 1, "nested more than 16 deep"),
    ])
    func tooDeep(text: String, line: Int, reason: String) throws {
        #expect(text.utf8.count < KeysFile.maximumSize)
        let message = try #require(try Home(text).failure())
        #expect(message.hasPrefix("~/.config/loupe/keys.toml:\(line): "), "\(message)")
        #expect(message.contains(reason), "\(message)")
    }

    @Test("dots in values, strings and comments are not key parts; sixteen parts are fine")
    func dotsElsewhere() throws {
        let sixteen = (1...16).map { "k\($0)" }.joined(separator: ".")
        let text = """
            # a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r
            "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r" = 1.5
            x = ["a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r", 1.25, { y = 2.5 }]
            \(sixteen) = 1
            """
        #expect(throws: Never.self) { try TOMLGuard.check(text) }
    }
}
