import ArgumentParser
import Foundation
import HTTPTypes
@testable import loupe
import Testing

@Suite("loupe send: streamed output, --output, --max-response-bytes")
struct SendStreamingTests {
    static let send = UsageErrorTests.send

    @Test("--max-response-bytes is a whole number of bytes in range; bad values are one line with exit 2")
    func limitArgument() throws {
        let expected = "a whole number of bytes from 0 to 1125899906842624"
        for value in ["-1", "1.5", "1e6", "inf", "nan", "abc", "1125899906842625", "99999999999999999999"] {
            UsageErrorTests.expectOneLine(Self.send + ["--max-response-bytes", value],
                                          "loupe: --max-response-bytes: expected \(expected), got '\(value)'")
        }
        let parsed = try #require(try LoupeCommand.parseAsRoot(Self.send + ["--max-response-bytes", "1048576"]) as? SendCommand)
        #expect(parsed.maxResponseBytes?.value == 1_048_576)
        let unlimited = try #require(try LoupeCommand.parseAsRoot(Self.send) as? SendCommand)
        #expect(unlimited.maxResponseBytes == nil && unlimited.output == nil)
    }

    @Test("--output refuses a directory or a missing folder at once, and leaves them alone")
    func outputArgument() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-send-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        UsageErrorTests.expectOneLine(Self.send + ["--output", folder.path], "loupe: --output \(folder.path) is a directory")
        let missing = folder.appendingPathComponent("no/such/file.bin").path
        UsageErrorTests.expectOneLine(Self.send + ["-o", missing])
        let fine = folder.appendingPathComponent("body.bin").path
        let parsed = try #require(try LoupeCommand.parseAsRoot(Self.send + ["-o", fine]) as? SendCommand)
        #expect(parsed.output == fine)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// Writes through a `StandardOutputSink` into a file and returns what arrived.
    static func output(terminal: Bool, printsHead: Bool = true, _ chunks: [Data]) throws -> Data {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-out-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        let sink = StandardOutputSink(handle: handle, terminal: terminal, printsHead: printsHead)
        try sink.begin(HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"]), httpVersion: "HTTP/1.1")
        for chunk in chunks { try sink.write(chunk) }
        try sink.finish(byteCount: Int64(chunks.reduce(0) { $0 + $1.count }))
        try handle.close()
        return try Data(contentsOf: url)
    }

    @Test("a pipe or file gets the head, then the body's exact bytes")
    func exactBytes() throws {
        let body = Data([0x1B, 0x5B, 0x32, 0x4A, 0x00, 0xFF, 0x0A])  // ESC [2J, NUL, an invalid byte, newline
        let out = try Self.output(terminal: false, [body.prefix(3), body.suffix(4)])
        #expect(out == Data("HTTP/1.1 200 OK\nContent-Type: text/plain\n\n".utf8) + body)
        // No final newline in the body: one is added so the prompt starts on its own line.
        #expect(try Self.output(terminal: false, printsHead: false, [Data("abc".utf8)]) == Data("abc\n".utf8))
        #expect(try Self.output(terminal: false, printsHead: false, []) == Data())
    }

    @Test("a terminal gets control characters made visible, even when a UTF-8 character is split between chunks")
    func terminalText() throws {
        let text = Data("é\u{1B}[2J€😀\n".utf8)
        // Every split point, so a character cut anywhere must come out whole.
        for cut in 0...text.count {
            let out = try Self.output(terminal: true, printsHead: false, [text.prefix(cut), text.suffix(from: cut)])
            #expect(String(decoding: out, as: UTF8.self) == "é␛[2J€😀\n", "cut at \(cut)")
        }
        let truncated = try Self.output(terminal: true, printsHead: false, [Data([0x61, 0xE2, 0x82])])
        #expect(String(decoding: truncated, as: UTF8.self) == "a\u{FFFD}\n")
    }

    @Test("UTF8Boundary holds back only an unfinished character")
    func boundary() {
        #expect(UTF8Boundary.completeLength(of: Data("abc".utf8)) == 3)
        #expect(UTF8Boundary.completeLength(of: Data([0x61, 0xF0, 0x9F, 0x98])) == 1)
        #expect(UTF8Boundary.completeLength(of: Data([0xF0, 0x9F, 0x98, 0x80])) == 4)
        #expect(UTF8Boundary.completeLength(of: Data([0x80, 0x80, 0x80, 0x80])) == 4)
        #expect(UTF8Boundary.completeLength(of: Data([0x61, 0xC3])) == 1)
        #expect(UTF8Boundary.completeLength(of: Data()) == 0)
    }
}
