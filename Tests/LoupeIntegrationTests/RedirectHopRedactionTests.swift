import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeAsyncHTTPClient
import LoupeQuery
import LoupeTrace
import Synchronization
import Testing

/// A token in a redirect's `Location` (issue 26, item 9): the hop is not an attempt of its own, so the transport
/// records it as a `redirect` event, whose URL the recorder redacts by name; the token it held is then scrubbed
/// wherever the final response echoes it, even under a name no list has.
@Suite struct RedirectHopRedactionTests {
    static let token = "HOP-tok-\(UUID().uuidString.prefix(8))"

    static func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("start") { _, _ in
            Response(status: .found, headers: [.location: "/final?access_token=\(token)"])
        }
        router.get("final") { request, _ -> String in
            let query = request.uri.query ?? ""
            return #"{"t":"\#(query.replacingOccurrences(of: "access_token=", with: ""))"}"#
        }
        return router
    }

    @Test(arguments: [false, true])
    func theHopIsRecordedRedactedAndItsTokenScrubbed(streaming: Bool) async throws {
        try await withLocalServer(Self.router()) { baseURL in
            let store = InMemoryTraceStore()
            let inspector = NetworkTraceInspector(store: store)
            let transport = AsyncHTTPClientTransport()
            let client = Client(baseURL: baseURL, transport: transport, observer: inspector)
            let request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("start"))
            if streaming {
                _ = try await client.execute(request, streamingBodyTo: DiscardingSink())
            } else {
                _ = try await client.execute(request)
            }
            await inspector.shutdown()
            try await transport.shutdown()
            let trace = try #require(try store.recent(limit: 1).first.flatMap { try store.exchange(id: $0.id) })
            let body = String(decoding: trace.responseBody?.data ?? Data(), as: UTF8.self)
            #expect(body == #"{"t":"[REDACTED]"}"#)
            let hop = try #require(trace.events.first { $0.kind == .redirect })
            #expect(hop.message.hasPrefix("followed a redirect to "))
            #expect(hop.message.hasSuffix("/final?access_token=%5BREDACTED%5D"))
            #expect(!"\(trace)".contains(Self.token))
        }
    }
}

/// A sink that drops the body.
private final class DiscardingSink: ResponseBodySink {
    var canRestart: Bool { true }
    func begin(_ head: HTTPResponse, httpVersion: String?) throws {}
    func write(_ chunk: Data) throws {}
    func finish(byteCount: Int64) throws {}
}
