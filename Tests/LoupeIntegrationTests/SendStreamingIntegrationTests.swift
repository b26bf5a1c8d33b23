import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import LoupeFormats
import NIOCore
import NIOFoundationEssentialsCompat
import Synchronization
import Testing

/// `loupe send` (the real binary) streaming large bodies from a Hummingbird server on loopback: exact bytes on
/// stdout or in --output, the store holding the capped prefix and the true size, failures mid-body reported once.
/// Requests a test server answered.
final class Hits: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}

@Suite(.serialized) struct SendStreamingIntegrationTests {
    static let chunkSize = 64 * 1024
    /// The pattern's 251-byte cycle repeated past one chunk, so any chunk of it is one slice.
    static let cycle = Data((0..<(1 << 20) + 251).map(StreamingMockTransport.patternByte(at:)))

    static func pattern(from offset: Int, count: Int) -> Data {
        let start = offset % 251
        return cycle.subdata(in: start..<start + count)
    }

    /// `/big/N` serves N pattern bytes with a Content-Length; `/broken/N` declares N and stops after N / 10.
    static func router(hits: Hits) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/big/:size") { _, context -> Response in
            hits.add()
            let size = try context.parameters.require("size", as: Int.self)
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                            body: ResponseBody(contentLength: size) { writer in
                var offset = 0
                while offset < size {
                    let count = min(chunkSize, size - offset)
                    try await writer.write(ByteBuffer(data: pattern(from: offset, count: count)))
                    offset += count
                }
                try await writer.finish(nil)
            })
        }
        router.get("/broken/:size") { _, context -> Response in
            hits.add()
            let size = try context.parameters.require("size", as: Int.self)
            return Response(status: .ok, body: ResponseBody(contentLength: size) { writer in
                try await writer.write(ByteBuffer(data: pattern(from: 0, count: size / 10)))
                throw CancellationError()  // the server drops the connection mid-body
            })
        }
        return router
    }

    /// Runs the `loupe` binary, stdout into `stdout` (a file), stderr returned.
    static func loupe(_ arguments: [String], stdout: URL) async throws -> (code: Int32, err: String) {
        let process = Process()
        process.executableURL = try #require(CrossProcessTests.loupeBinary, "build the loupe executable first (swift build)")
        process.arguments = arguments
        let err = stdout.appendingPathExtension("err")
        #expect(FileManager.default.createFile(atPath: stdout.path, contents: nil))
        #expect(FileManager.default.createFile(atPath: err.path, contents: nil))
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        let code: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (code, try String(contentsOf: err, encoding: .utf8))
    }

    /// Whether `file` from `offset` holds exactly `size` pattern bytes followed by `trailer`, read 1 MiB at a time.
    static func holdsPattern(_ file: URL, from offset: UInt64, size: Int, trailer: Data) throws -> Bool {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        var read = 0
        while read < size {
            let count = min(1 << 20, size - read)
            guard let chunk = try handle.read(upToCount: count), chunk == pattern(from: read, count: count) else { return false }
            read += count
        }
        return try (handle.readToEnd() ?? Data()) == trailer
    }

    @Test func twoHundredMegabytesStreamToStdoutAndTheStoreKeepsThePrefixAndTheTrueSize() async throws {
        let size = 200 * 1024 * 1024 + 5
        let hits = Hits()
        try await withTemporaryDirectory { folder in
            try await withLocalServer(Self.router(hits: hits)) { server in
                let store = folder.appendingPathComponent("traces.sqlite").path
                let out = folder.appendingPathComponent("out")
                let run = try await Self.loupe(["send", "GET", "\(server)/big/\(size)", "--store", store, "--retries", "2"], stdout: out)
                #expect(run.code == 0, "\(run.err)")

                // The head (header names as the server spelled them), a blank line, then the body's exact bytes.
                let start = try #require(try FileHandle(forReadingFrom: out).read(upToCount: 512))
                let blank = try #require(start.firstRange(of: Data("\n\n".utf8)))
                let head = String(decoding: start[..<blank.lowerBound], as: UTF8.self).lowercased()
                #expect(head.hasPrefix("http/1.1 200 ok\n") && head.contains("content-length: \(size)"), "\(head)")
                // The body does not end in a newline, so one follows it.
                #expect(try Self.holdsPattern(out, from: UInt64(blank.upperBound), size: size, trailer: Data("\n".utf8)))

                let exchange = try #require(try SQLiteTraceStore(path: store, readOnly: true).exchanges(matching: nil, limit: 1).first)
                #expect(exchange.status == 200 && exchange.outcome == .success)
                let body = try #require(exchange.responseBody)
                #expect(body.size == size && body.isTruncated && body.data == Self.pattern(from: 0, count: 1 << 20))
                #expect(hits.value == 1)
            }
        }
    }

    @Test func outputReplacesAFileOnlyWhenTheWholeBodyArrived() async throws {
        let hits = Hits()
        try await withTemporaryDirectory { folder in
            try await withLocalServer(Self.router(hits: hits)) { server in
                let store = folder.appendingPathComponent("traces.sqlite").path
                let target = folder.appendingPathComponent("body.bin")
                try Data("old contents".utf8).write(to: target)
                chmod(target.path, 0o640)

                // The connection drops mid-body, retries or not: the old file stays as it was, no temporary is left.
                let out = folder.appendingPathComponent("out1")
                let broken = try await Self.loupe(
                    ["send", "GET", "\(server)/broken/10000000", "-o", target.path, "--force", "--store", store, "--retries", "1"], stdout: out)
                #expect(broken.code == 1 && broken.err.contains("loupe: GET"), "\(broken.err)")
                #expect(try Data(contentsOf: target) == Data("old contents".utf8))
                #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)).allSatisfy { !$0.hasSuffix(".part") })
                #expect(hits.value == 2, "a file can be rewritten, so the retry runs")

                let size = 20 * 1024 * 1024 + 1
                let done = try await Self.loupe(["send", "GET", "\(server)/big/\(size)", "-o", target.path, "--force", "--store", store],
                                                stdout: folder.appendingPathComponent("out2"))
                #expect(done.code == 0, "\(done.err)")
                #expect(try Self.holdsPattern(target, from: 0, size: size, trailer: Data()))
                let mode = try FileManager.default.attributesOfItem(atPath: target.path)[.posixPermissions] as? Int
                #expect(mode == 0o640, "the replaced file keeps its permissions")
                let printed = try String(contentsOf: folder.appendingPathComponent("out2"), encoding: .utf8)
                #expect(printed.hasPrefix("HTTP/1.1 200 OK\n") && printed.hasSuffix("\n\n"))
            }
        }
    }

    @Test func aBodyBrokenAfterOutputBeganIsReportedOnceAndNotRetried() async throws {
        let hits = Hits()
        try await withTemporaryDirectory { folder in
            try await withLocalServer(Self.router(hits: hits)) { server in
                let store = folder.appendingPathComponent("traces.sqlite").path
                let out = folder.appendingPathComponent("out")
                let run = try await Self.loupe(["send", "GET", "\(server)/broken/10000000", "--store", store, "--retries", "3"], stdout: out)
                #expect(run.code == 1)
                #expect(run.err.contains("interrupted after delivery began"), "\(run.err)")
                #expect(hits.value == 1)
                let exchange = try #require(try SQLiteTraceStore(path: store, readOnly: true).exchanges(matching: nil, limit: 1).first)
                #expect(exchange.outcome == .transportError && exchange.attempts.count == 1)
                #expect((exchange.responseBody?.size ?? 0) > 0 && (exchange.responseBody?.size ?? 0) <= 1_000_000)
            }
        }
    }

    @Test func standardOutputThatRefusesTheBodyEndsTheSendWithOneLine() async throws {
        let hits = Hits()
        try await withTemporaryDirectory { folder in
            try await withLocalServer(Self.router(hits: hits)) { server in
                let store = folder.appendingPathComponent("traces.sqlite").path
                let (status, stderr) = try StandardStreamsIntegrationTests.runIntoFullDisk(
                    ["send", "GET", "\(server)/big/300000", "--store", store])
                #expect(status == 2, "\(stderr)")
                #expect(stderr.hasSuffix("loupe: cannot write to standard output: No space left on device\n"), "\(stderr)")
                #expect(!stderr.contains("NSCocoaErrorDomain"))
                let exchange = try #require(try SQLiteTraceStore(path: store, readOnly: true).exchanges(matching: nil, limit: 1).first)
                #expect(exchange.error?.contains("cannot write to standard output: No space left on device") == true,
                        "\(exchange.error ?? "no error recorded")")
            }
        }
    }

    @Test func aDeclaredBodyOverMaxResponseBytesIsRefusedBeforeAnyOfItIsWritten() async throws {
        let hits = Hits()
        try await withTemporaryDirectory { folder in
            try await withLocalServer(Self.router(hits: hits)) { server in
                let out = folder.appendingPathComponent("out")
                let run = try await Self.loupe(["send", "GET", "\(server)/big/5000", "--max-response-bytes", "4999",
                                                "--store", folder.appendingPathComponent("t.sqlite").path], stdout: out)
                #expect(run.code == 1 && run.err.contains("limit of 4999 bytes"), "\(run.err)")
                #expect(try Data(contentsOf: out).isEmpty)
            }
        }
    }
}
