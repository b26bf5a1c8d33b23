import LoupeTUI
import Testing

@Suite("Key names")
struct KeyNameTests {
    /// Every key a user can bind: printable ASCII, a sample of other scripts and symbols, the named keys, Ctrl-letters.
    static let bindable: [Key] = {
        var keys: [Key] = (0x21...0x7E).map { .char(Character(Unicode.Scalar(UInt8($0)))) }
        keys += ["é", "ß", "ä", "Ж", "λ", "中", "→", "€", "👍", "🇫🇷"].map { Key.char($0) }
        keys += [.char(" "), .up, .down, .left, .right, .pageUp, .pageDown, .home, .end, .enter, .escape,
                 .backspace, .delete, .tab, .backTab]
        keys += "abcdefghijklmnopqrstuvwxyz".map { Key.ctrl($0) }
        return keys
    }()

    @Test("every bindable key round-trips through its name, and names are distinct")
    func roundTrip() throws {
        var seen: [String: Key] = [:]
        for key in Self.bindable {
            let name = try #require(key.name, "\(key) has no name")
            #expect(Key(name: name) == key, "\(name)")
            #expect(seen.updateValue(key, forKey: name) == nil, "\(name) names two keys")
        }
        #expect(seen.count == Self.bindable.count)
    }

    @Test("every accepted spelling parses to a key whose canonical name parses back to the same key")
    func canonical() throws {
        let spellings = Key.named.keys.flatMap { [$0, $0.uppercased(), $0.prefix(1).uppercased() + $0.dropFirst()] }
            + "abcdefghijklmnopqrstuvwxyz".flatMap { ["ctrl-\($0)", "CTRL-\($0.uppercased())", "Ctrl-\($0)", "^\($0)"] }
        for spelling in spellings {
            let key = try #require(Key(name: spelling), "\(spelling)")
            #expect(Key(name: try #require(key.name)) == key)
        }
    }

    @Test("the names users write", arguments: [
        ("f", Key.char("f")), ("F", .char("F")), ("/", .char("/")), ("?", .char("?")), (":", .char(":")),
        ("space", .char(" ")), ("Space", .char(" ")), ("enter", .enter), ("esc", .escape), ("ESCAPE", .escape),
        ("tab", .tab), ("shift-tab", .backTab), ("backtab", .backTab), ("backspace", .backspace), ("delete", .delete),
        ("up", .up), ("down", .down), ("left", .left), ("right", .right), ("pgup", .pageUp), ("PageUp", .pageUp),
        ("pgdn", .pageDown), ("pagedown", .pageDown), ("home", .home), ("end", .end), ("ctrl-a", .ctrl("a")),
        ("Ctrl-Z", .ctrl("z")), ("ctrl-F", .ctrl("f")), ("^u", .ctrl("u")), ("^", .char("^")), ("é", .char("é")),
    ])
    func written(name: String, key: Key) {
        #expect(Key(name: name) == key)
    }

    @Test("canonical names are the short lowercase ones")
    func names() {
        #expect(Key.char(" ").name == "space")
        #expect(Key.escape.name == "esc")
        #expect(Key.backTab.name == "shift-tab")
        #expect(Key.pageUp.name == "pgup")
        #expect(Key.pageDown.name == "pgdn")
        #expect(Key.ctrl("f").name == "ctrl-f")
        #expect(Key.char("F").name == "F")
    }

    @Test("what is not a key name", arguments: [
        "", " ", "  ", "ff", "ctrl-", "ctrl-ä", "ctrl-1", "ctrl-ab", "ctrl-space", "shift-f", "alt-f", "^^", "^1",
        "f1", "\t", "\n", "\u{1B}", "\u{7F}", "\u{200B}", "resize", "enterr", "\u{0}",
    ])
    func rejected(name: String) {
        #expect(Key(name: name) == nil)
    }

    @Test("events that are not keys to bind have no name")
    func unnamed() {
        #expect(Key.resize.name == nil)
        #expect(Key.char("\u{1B}").name == nil)
        #expect(Key.char("\t").name == nil)
    }
}
