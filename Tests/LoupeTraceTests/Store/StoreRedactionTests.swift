import Foundation
import Loupe
import LoupeQuery
import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("Re-redacting a store in place")
struct StoreRedactionTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// An exchange recorded in clear, as an older Loupe (or a narrower policy) stored it.
    func clearExchange(_ n: Int, secret: String) -> TraceExchange {
        let padding = String(repeating: "p", count: 9000)  // bodies on overflow pages too
        let body = Data(#"{"user":"ada","client_secret":"\#(secret)","pad":"\#(padding)"}"#.utf8)
        let echo = Data(#"{"echo":"\#(secret)","pad":"\#(padding)"}"#.utf8)
        return TraceExchange(
            id: UUID(), operation: "POST /login?key=\(secret)", method: "POST",
            url: "https://api.example.test/login?key=\(secret)&n=\(n)", startedAt: Self.start, outcome: .success,
            status: 200, error: nil,
            requestHeaders: [TraceHeader(name: "X-Api-Key", value: secret), TraceHeader(name: "X-Tenant", value: "TENANT-\(secret)")],
            requestBody: TraceBody(data: body, size: body.count, isTruncated: false),
            responseHeaders: [TraceHeader(name: "X-Echo", value: secret)],
            responseBody: TraceBody(data: echo, size: echo.count, isTruncated: false),
            attempts: [TraceAttempt(number: 1, startedAt: Self.start, error: "saw \(secret)", notes: ["n": secret])],
            events: [TraceEvent(kind: "retry", at: Self.start, message: "m \(secret)", attributes: ["a": secret])])
    }

    func fileBytes(_ path: String) -> Data {
        var bytes = Data()
        for suffix in ["", "-wal", "-shm", "-journal"] {
            bytes.append(FileManager.default.contents(atPath: path + suffix) ?? Data())
        }
        return bytes
    }

    @Test("every planted secret leaves the file and its WAL, free pages included; sequences and counts stay")
    func redactsInPlace() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let secrets = (0..<6).map { "PLANTED-\($0)-c0ffee\($0)" }
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        try store.write(secrets.enumerated().map { clearExchange($0.offset, secret: $0.element) })
        let clean = TraceExchange(id: UUID(), operation: "GET /health", method: "GET",
                                  url: "https://api.example.test/health", startedAt: Self.start, outcome: .success)
        try store.write([clean])
        let before = try store.recent(limit: 100)
        for secret in secrets {
            #expect(fileBytes(path).range(of: Data(secret.utf8)) != nil, "the test must plant \(secret) first")
        }

        let policy = RedactionPolicy().adding(headers: ["X-Tenant"])
        let result = try store.redactStored(with: policy)
        #expect(result == StoreRedactionResult(examined: 7, changed: 6, isComplete: true))
        try store.close()

        let bytes = fileBytes(path)
        for secret in secrets {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is still in the file")
            #expect(bytes.range(of: Data(Data(secret.utf8).base64EncodedString().utf8)) == nil)
        }
        #expect((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0 == 0)

        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        let after = try reader.recent(limit: 100)
        #expect(after.map(\.id) == before.map(\.id))
        #expect(after.map(\.sequence) == before.map(\.sequence))
        let first = try #require(try reader.exchange(id: before[0].id))
        #expect(first.url == "https://api.example.test/login?key=%5BREDACTED%5D&n=0")
        #expect(first.requestHeaders.map(\.value) == ["[REDACTED]", "[REDACTED]"])
        #expect(first.attempts.first?.notes == ["n": "[REDACTED]"])
        #expect(first.events.first?.attributes == ["a": "[REDACTED]"])
        let body = String(decoding: first.requestBody?.data ?? Data(), as: UTF8.self)
        #expect(body.hasPrefix(#"{"user":"ada","client_secret":"[REDACTED]","pad":"ppp"#))
        #expect(try reader.exchange(id: clean.id)?.url == clean.url)
        try reader.close()

        // Again: nothing left to change.
        let again = try SQLiteTraceStore(path: path, bounds: nil)
        #expect(try again.redactStored(with: policy) == StoreRedactionResult(examined: 7, changed: 0, isComplete: true))
        try again.close()
    }

    @Test("a read-only store is refused")
    func readOnly() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        try SQLiteTraceStore(path: path).close()
        let reader = try SQLiteTraceStore(path: path, readOnly: true)
        #expect(throws: TraceStoreError.self) { try reader.redactStored(with: RedactionPolicy()) }
    }
}
