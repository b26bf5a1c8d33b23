import Foundation
import Loupe
import LoupeQuery
import LoupeServe
import LoupeTrace
import Testing

/// The library read from a SQLite store: only the request side is held for matching, the response read when served.
@Suite struct ServeLibraryTests {
    @Test func aStoresRequestsAreHeldWithoutResponsesWhichAreReadWhenServed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = Recordings.exchange("POST", "/orders?b=2&a=1", status: 201, body: #"{"order":1}"#, requestBody: #"{"qty":1}"#,
                                        requestHeaders: [TraceHeader(name: "X-Tenant", value: "blue"), TraceHeader(name: "Accept", value: "*/*")])
        var socket = Recordings.exchange("GET", "/live", status: 101, offset: 1)
        socket.stream = TraceStream(kind: .webSocket, messages: [
            TraceMessage(index: 0, direction: .received, at: Recordings.start.addingTimeInterval(1.5), type: "text", size: 2,
                         payload: Data("hi".utf8), eventID: nil),
        ], receivedCount: 1, closedBy: "server")
        let path = folder.appendingPathComponent("s.sqlite").path
        try SQLiteTraceStore(path: path).write([plain, socket])
        let store = try SQLiteTraceStore(path: path, readOnly: true)

        let library = try ServeLibrary(store: store, keptHeaders: ["x-tenant"])
        #expect(library.requests.map(\.webSocket) == [false, true])
        #expect(library.requests[0].body == Data(#"{"qty":1}"#.utf8))
        #expect(library.requests[0].headers == [TraceHeader(name: "X-Tenant", value: "blue")])
        var book = ServeBook(library.requests, matching: ServeMatching(headers: ["X-Tenant"]))
        let live = ServeRequest(method: "POST", path: "/orders", query: "a=1&b=2",
                                headers: [TraceHeader(name: "x-tenant", value: "blue")], body: Data(#"{"qty":1}"#.utf8))
        #expect(book.take(live) == .serve(0))
        #expect(try library.exchange(at: 0)?.responseBody?.data == Data(#"{"order":1}"#.utf8))
        #expect(try library.exchange(at: 1)?.stream?.messages.count == 1)
    }
}
