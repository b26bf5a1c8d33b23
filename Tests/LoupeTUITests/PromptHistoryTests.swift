import Foundation
import LoupeTUI
import Testing

@Suite("Prompt history")
struct PromptHistoryTests {
    /// A temporary folder removed when the test ends.
    final class Folder {
        let path = NSTemporaryDirectory() + "loupe-history-" + UUID().uuidString
        deinit { try? FileManager.default.removeItem(atPath: path) }

        func mode(_ relative: String) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + relative)
            return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
        }
    }

    @Test("lives in $XDG_STATE_HOME/loupe/history, else ~/.local/state/loupe/history")
    func location() {
        #expect(FilePromptHistory.defaultFolder(environment: ["HOME": "/home/ada"]) == "/home/ada/.local/state/loupe/history")
        #expect(FilePromptHistory.defaultFolder(environment: ["HOME": "/home/ada", "XDG_STATE_HOME": "/var/st"])
                == "/var/st/loupe/history")
        #expect(FilePromptHistory.defaultFolder(environment: ["HOME": "/home/ada", "XDG_STATE_HOME": "st"])
                == "/home/ada/.local/state/loupe/history")
    }

    @Test("entries persist one per line, newest last; re-entering moves to the end; kinds are separate")
    func persistence() throws {
        let folder = Folder()
        let history = FilePromptHistory(environment: ["HOME": folder.path])
        #expect(history.entries(for: "filter") == [])
        history.record("~c 5xx", for: "filter")
        history.record("~h api", for: "filter")
        history.record("~c 5xx", for: "filter")
        history.record("token", for: "search")

        let reopened = FilePromptHistory(environment: ["HOME": folder.path])
        #expect(reopened.entries(for: "filter") == ["~h api", "~c 5xx"])
        #expect(reopened.entries(for: "search") == ["token"])
        let file = folder.path + "/.local/state/loupe/history/filter"
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "~h api\n~c 5xx\n")
        #expect(history.lastError == nil)
    }

    @Test("folders it creates are 0700, the file 0600, and no temporary file is left")
    func permissions() throws {
        let folder = Folder()
        let history = FilePromptHistory(environment: ["HOME": folder.path])
        history.record("GET", for: "command")
        #expect(try folder.mode(".local") == 0o700)
        #expect(try folder.mode(".local/state/loupe") == 0o700)
        #expect(try folder.mode(".local/state/loupe/history") == 0o700)
        #expect(try folder.mode(".local/state/loupe/history/command") == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/.local/state/loupe/history") == ["command"])
    }

    @Test("keeps the newest 500 entries")
    func bounded() throws {
        let folder = Folder()
        let history = FilePromptHistory(folder: folder.path)
        for number in 1...503 { history.record("entry \(number)", for: "filter") }
        let entries = history.entries(for: "filter")
        #expect(entries.count == 500)
        #expect(entries.first == "entry 4")
        #expect(entries.last == "entry 503")
    }

    @Test("long, multi-line, control-character and blank entries are not recorded", arguments: [
        String(repeating: "x", count: 4097), "a\nb", "a\rb", "\u{1B}[31mred", "tab\there", "", "   ", "a\u{2028}b",
        "\u{9B}31m",
    ])
    func refused(entry: String) {
        let folder = Folder()
        let history = FilePromptHistory(folder: folder.path)
        history.record(entry, for: "filter")
        #expect(history.entries(for: "filter") == [])
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/filter"))
        let memory = InMemoryPromptHistory()
        memory.record(entry, for: "filter")
        #expect(memory.entries(for: "filter") == [])
    }

    @Test("an entry of exactly 4096 bytes is kept")
    func longest() {
        let folder = Folder()
        let history = FilePromptHistory(folder: folder.path)
        let entry = String(repeating: "é", count: 2048)
        history.record(entry, for: "export")
        #expect(history.entries(for: "export") == [entry])
    }

    @Test("a hand-edited file: bad lines are skipped, repeats collapse to the newest")
    func handEdited() throws {
        let folder = Folder()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        var bytes = Data("one\n\u{1B}]0;x\u{07}\ntwo\n".utf8)
        bytes += [0xFF, 0xFE, 0x0A]
        bytes += Data("one\n\n   \nthree".utf8)
        try bytes.write(to: URL(fileURLWithPath: folder.path + "/filter"))
        let history = FilePromptHistory(folder: folder.path)
        #expect(history.entries(for: "filter") == ["two", "one", "three"])
    }

    @Test("a huge file is read from its end, starting at a whole line")
    func hugeFile() throws {
        let folder = Folder()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        let lines = (1...200_000).map { "entry number \($0) with some padding to make it long" }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: folder.path + "/search"))
        let entries = FilePromptHistory(folder: folder.path).entries(for: "search")
        #expect(entries.count == 500)
        #expect(entries.last == lines.last)
        #expect(entries.first == lines[lines.count - 500])
    }

    @Test("failures never throw; they are kept in lastError and the history stays empty")
    func failures() throws {
        let folder = Folder()
        try FileManager.default.createDirectory(atPath: folder.path, withIntermediateDirectories: true)
        // A file where a folder should be: ENOTDIR even for root.
        #expect(FileManager.default.createFile(atPath: folder.path + "/state", contents: Data()))
        let history = FilePromptHistory(folder: folder.path + "/state/loupe/history")
        history.record("~c 500", for: "filter")
        #expect(history.entries(for: "filter") == [])
        let error = try #require(history.lastError)
        #expect(error.contains("Not a directory"), "\(error)")
        #expect(!error.contains("\n"))

        let other = FilePromptHistory(folder: folder.path)
        other.record("x", for: "../escape")
        #expect(other.lastError?.hasPrefix("not a history kind") == true)
        #expect(other.entries(for: "../escape") == [])
        #expect(!FileManager.default.fileExists(atPath: NSTemporaryDirectory() + "escape"))
    }

    @Test("the in-memory history follows the same rules")
    func inMemory() {
        let history = InMemoryPromptHistory(["filter": ["a", "b"]])
        history.record("a", for: "filter")
        history.record("c", for: "search")
        #expect(history.entries(for: "filter") == ["b", "a"])
        #expect(history.entries(for: "search") == ["c"])
        for number in 1...600 { history.record("\(number)", for: "command") }
        #expect(history.entries(for: "command").count == 500)
        #expect(history.entries(for: "command").last == "600")
    }
}
