import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeQuery
import LoupeTrace
import LoupeReplay
import Testing

@Suite struct RecordingIntegrationTests {
    @Test func demoTrafficIsRecordedIntoSQLiteWithSecretsRedacted() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("nested/traces.sqlite").path
            try await withDemoServer { baseURL in
                let store = try SQLiteTraceStore(path: path)
                let inspector = NetworkTraceInspector(store: store)
                let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(), observer: inspector)
                let traffic = DemoTraffic(client: client)
                for step in 0..<20 { await traffic.call(step) }
                await inspector.shutdown()

                let reader = try SQLiteTraceStore(path: path, readOnly: true)
                #expect(try reader.count() == 20)
                let summaries = try reader.recent(limit: 100)
                #expect(Set(summaries.map(\.operation)).isSuperset(of: ["listUsers", "flaky", "profile", "createOrder", "binary"]))
                let profile = try #require(summaries.first { $0.operation == "profile" && $0.status == 200 })
                let exchange = try #require(try reader.exchange(id: profile.id))
                #expect(exchange.requestHeaders.contains { $0.name.lowercased() == "authorization" && $0.value == "[REDACTED]" })
                #expect(exchange.attempts.count == 1)
                #expect(exchange.attempts[0].firstByteAt != nil)
                let body = String(decoding: exchange.responseBody?.data ?? Data(), as: UTF8.self)
                #expect(body.contains("Ada Lovelace"))
            }
            // The secret never reaches the disk, in the database or its write-ahead log.
            for suffix in ["", "-wal", "-shm"] {
                guard let bytes = FileManager.default.contents(atPath: path + suffix) else { continue }
                #expect(bytes.range(of: Data(FlakyAPI.demoToken.utf8)) == nil, "token found in \(suffix)")
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
    }

    @Test func replayIsRecordedAsAReplayOfTheOriginal() async throws {
        try await withDemoServer { baseURL in
            let store = InMemoryTraceStore()
            let inspector = NetworkTraceInspector(store: store)
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(), observer: inspector)
            _ = try await client.send(DemoEndpoints.CreateOrder(order: .init(item: "replay-me", quantity: 3)))
            await inspector.flush()
            let original = try #require(store.all.first)
            let replayed = try await TraceReplayer(client: client).replay(original)
            await inspector.flush()
            #expect(replayed.status.code == 201)
            #expect(String(decoding: replayed.body, as: UTF8.self).contains("replay-me"))
            let copies = store.all.filter { $0.replayOf == original.id }
            #expect(copies.count == 1)
            #expect(copies.first?.method == "POST")
            await inspector.shutdown()
        }
    }
}
