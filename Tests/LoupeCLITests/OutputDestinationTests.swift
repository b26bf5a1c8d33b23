import ArgumentParser
import Foundation
import HTTPTypes
import LoupeQuery
@testable import loupe
import LoupeTrace
import LoupeFormats
import Testing

/// `send -o PATH` and `export --har PATH` never destroy what is at PATH (issue 26, item 8; issue 25, item 20), and
/// the smaller CLI items of issue 26 (13, 14).
@Suite("Output destinations and CLI input")
struct OutputDestinationTests {
    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "loupe-out-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func refusal(_ path: String, force: Bool = false, stores: [String] = []) -> String? {
        do {
            _ = try OutputDestination.check(path, flag: "--output", force: force, stores: stores)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("a new path is written beside and renamed; an existing file only with --force, and a refused one is unchanged")
    func regularFiles() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try OutputDestination.check(folder + "/new.bin", flag: "--output", force: false) == .replace(folder + "/new.bin"))
        let existing = folder + "/body.bin"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: existing))
        #expect(Self.refusal(existing) == "--output \(existing) exists; pass --force to replace it")
        #expect(try OutputDestination.check(existing, flag: "--output", force: true) == .replace(existing))
        // A link to a file is replaced at its target, so the link stays a link.
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: existing)
        #expect(try OutputDestination.check(folder + "/link", flag: "--output", force: true) == .replace(existing))
        try FileManager.default.createSymbolicLink(atPath: folder + "/dangling", withDestinationPath: folder + "/nowhere")
        #expect(Self.refusal(folder + "/dangling", force: true) == "--output \(folder)/dangling is a symbolic link to a file that does not exist")
        #expect(Self.refusal(folder, force: true) == "--output \(folder) is a directory")
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("mine".utf8))
    }

    @Test("a store, any SQLite database, its side files and links to them are refused even with --force")
    func stores() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = folder + "/traces.sqlite"
        try SQLiteTraceStore(path: store).write([])
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        #expect(Self.refusal(store, force: true, stores: [store]) == "refusing to write --output \(store): it is the trace store \(store)")
        #expect(Self.refusal(store, force: true) == "refusing to write --output \(store): it is an SQLite database (a trace store?)")
        try FileManager.default.createSymbolicLink(atPath: folder + "/alias", withDestinationPath: store)
        #expect(Self.refusal(folder + "/alias", force: true)?.contains("SQLite database") == true)
        #expect(Self.refusal(store + "-wal", force: true, stores: [store])?.contains("it is the trace store") == true)
        try Data("wal".utf8).write(to: URL(fileURLWithPath: store + "-wal"))
        #expect(Self.refusal(store + "-wal", force: true)?.contains("belongs to the SQLite database") == true)
        // The store a command records into is refused even before it exists.
        #expect(Self.refusal(folder + "/later.sqlite", force: true, stores: [folder + "/later.sqlite"]) != nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    @Test("devices, FIFOs and /dev/stdout are written through, never renamed over")
    func specialFiles() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try OutputDestination.check("/dev/null", flag: "--output", force: false) == .through("/dev/null"))
        #expect(try OutputDestination.check("/dev/stdout", flag: "--output", force: false) == .through("/dev/stdout"))
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        #expect(try OutputDestination.check(folder + "/fifo", flag: "--output", force: false) == .through(folder + "/fifo"))
    }

    @Test("the pass-through sink writes the exact bytes where the path is")
    func passThrough() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out"
        #expect(PassThroughFileSink(path: path).writeFailure == nil)
        // Written through only where something is: a missing path under /dev/ is not created.
        #expect(throws: CommandFailure.self) { try PassThroughFileSink(path: path).begin(.init(status: .ok), httpVersion: nil) }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old contents".utf8)))
        let sink = PassThroughFileSink(path: path)
        try sink.begin(.init(status: .ok), httpVersion: nil)
        try sink.write(Data("ab".utf8))
        try sink.write(Data("c".utf8))
        try sink.finish(byteCount: 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("abc".utf8))
        let full = PassThroughFileSink(path: "/dev/full")
        try full.begin(.init(status: .ok), httpVersion: nil)
        #expect(throws: CommandFailure.self) { try full.write(Data("x".utf8)) }
        #expect(full.writeFailure == "cannot write /dev/full: No space left on device")
    }

    @Test("send -o and export --har refuse an existing file without --force and leave it byte-identical")
    func commands() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let existing = folder + "/keep.har"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))
        UsageErrorTests.expectOneLine(UsageErrorTests.send + ["-o", existing], "loupe: --output \(existing) exists; pass --force to replace it")
        let store = folder + "/traces.sqlite"
        UsageErrorTests.expectOneLine(UsageErrorTests.send + ["--store", store, "-o", store, "--force"])
        #expect(try LoupeCommand.parseAsRoot(UsageErrorTests.send + ["-o", existing, "--force"]) is SendCommand)

        try HARStreamCommandTests.har(count: 3).write(to: URL(fileURLWithPath: folder + "/in.har"))
        #expect(await HARStreamCommandTests.run(try ImportCommand.parse([folder + "/in.har", "--store", store])) == nil)
        let refused = await HARStreamCommandTests.run(try ExportCommand.parse([store, "--har", existing]))
        #expect(refused == .failure(line: "loupe: --har \(existing) exists; pass --force to replace it", code: 2))
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("keep me".utf8))
        let storeBytes = try Data(contentsOf: URL(fileURLWithPath: store))
        let onStore = await HARStreamCommandTests.run(try ExportCommand.parse([store, "--har", store, "--force"]))
        #expect(onStore == .failure(line: "loupe: refusing to write --har \(store): it is the trace store \(store)", code: 2))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == storeBytes)
        #expect(await HARStreamCommandTests.run(try ExportCommand.parse([store, "--har", existing, "--force"])) == nil)
        #expect(try HARImporter().exchanges(contentsOf: URL(fileURLWithPath: existing)).count == 3)
        #expect(await HARStreamCommandTests.run(try ExportCommand.parse([store, "--har", "/dev/null"])) == nil)
    }

    @Test("send -H refuses CR, LF and NUL in a value, as replay -H does")
    func headerInjection() {
        UsageErrorTests.expectOneLine(UsageErrorTests.send + ["-H", "X-A: a\r\nInjected: 1"])
        guard case .failure(let line?, _) = UsageErrorTests.report(UsageErrorTests.send + ["-H", "X-A: a\r\nInjected: 1"]) else {
            Issue.record("send -H with CR LF was accepted")
            return
        }
        #expect(line.contains("'Name: value' on one line"), "\(line)")
        UsageErrorTests.expectOneLine(UsageErrorTests.send + ["-H", "X-A: a\nb"])
        UsageErrorTests.expectOneLine(UsageErrorTests.send + ["-H", "no colon"])
    }

    @Test("~ expands with $HOME, in arguments and in LOUPE_STORE alike")
    func tilde() {
        #expect(StoreAccess.expandTilde("~/x.sqlite", environment: ["HOME": "/tmp/elsewhere"]) == "/tmp/elsewhere/x.sqlite")
        #expect(StoreAccess.expandTilde("~", environment: ["HOME": "/tmp/elsewhere"]) == "/tmp/elsewhere")
        #expect(StoreAccess.expandTilde("~user/x", environment: ["HOME": "/tmp/elsewhere"]) == "~user/x")
        #expect(StoreAccess.expandTilde("/a/~/b", environment: ["HOME": "/tmp/elsewhere"]) == "/a/~/b")
        setenv("LOUPE_STORE", "~/from-env.sqlite", 1)
        defer { unsetenv("LOUPE_STORE") }
        #expect(StoreAccess.path(nil) == StoreAccess.expandTilde("~/from-env.sqlite"))
        #expect(!StoreAccess.path(nil).hasPrefix("~"))
    }

    @Test("an import refused for a bad entry leaves no store behind when it created one")
    func refusedImportLeavesNoStore() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var text = String(decoding: try HARStreamCommandTests.har(count: 5), as: UTF8.self)
        let last = try #require(text.range(of: "\"id\" : \"", options: .backwards))
        text.replaceSubrange(last.upperBound..<text.index(last.upperBound, offsetBy: 4), with: "zzzz")
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/bad.har"))
        let store = folder + "/new.sqlite"
        let report = await HARStreamCommandTests.run(try ImportCommand.parse([folder + "/bad.har", "--store", store]))
        guard case .failure(_, 2) = report else {
            Issue.record("expected exit 2, got \(String(describing: report))")
            return
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["bad.har"])
    }
}
