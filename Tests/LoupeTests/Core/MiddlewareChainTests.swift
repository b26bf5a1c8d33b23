import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

/// Tags the request on the way out and the response on the way back, so order is visible.
struct Tagging: ClientMiddleware {
    let name: String
    nonisolated(nonsending) func intercept(_ request: HTTPRequest, body: RequestBody?, context: RequestContext,
                   next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse) async throws -> RawResponse {
        var request = request
        let outbound = HTTPField.Name("X-Out")!
        request.headerFields[outbound] = (request.headerFields[outbound].map { $0 + "," } ?? "") + name
        var response = try await next(request, body, context)
        let inbound = HTTPField.Name("X-Back")!
        response.head.headerFields[inbound] = (response.head.headerFields[inbound].map { $0 + "," } ?? "") + name
        return response
    }
}

/// Calls `next` up to `times` times until a success: the smallest possible retry, to test attempt bookkeeping.
struct Again: ClientMiddleware {
    let times: Int
    nonisolated(nonsending) func intercept(_ request: HTTPRequest, body: RequestBody?, context: RequestContext,
                   next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse) async throws -> RawResponse {
        var context = context
        var response = try await next(request, body, context)
        for _ in 1..<times where response.status.kind != .successful {
            context.record(.retryScheduled, "retrying after \(response.status.code)", attributes: ["status": "\(response.status.code)"])
            context.annotations.retryReason = "\(response.status.code)"
            response = try await next(request, body, context)
        }
        return response
    }
}

@Suite struct MiddlewareChainTests {
    @Test func requestsInOrderResponsesInReverse() async throws {
        let client = makeClient(MockTransport { request, _, _ in
            RawResponse(status: .ok, headerFields: [HTTPField.Name("X-Seen")!: request.headerFields[HTTPField.Name("X-Out")!] ?? ""])
        }, middlewares: [Tagging(name: "A"), Tagging(name: "B")])
        let response = try await client.execute(HTTPRequest(method: .get, url: URL(string: "http://x.test/")!))
        #expect(response.headerFields[HTTPField.Name("X-Seen")!] == "A,B")
        #expect(response.headerFields[HTTPField.Name("X-Back")!] == "B,A")
    }

    @Test func everyTransportCallIsOneNumberedAttempt() async throws {
        let observer = InMemoryClientObserver()
        let calls = Recorded<Int>()
        let client = makeClient(MockTransport { _, _, context in
            calls.append(context.attempt?.number ?? -1)
            return calls.values.count < 3 ? RawResponse(status: .serviceUnavailable) : RawResponse(status: .noContent)
        }, middlewares: [Again(times: 5)], observer: observer)
        let response = try await client.response(Ping())
        #expect(calls.values == [1, 2, 3])
        #expect(response.attempts.map(\.number) == [1, 2, 3])
        #expect(response.attempts.map(\.status) == [503, 503, 204])
        #expect(observer.events.count == 2)
        #expect(observer.events.allSatisfy { $0.kind == .retryScheduled && $0.exchangeID == response.exchangeID })
        let started = observer.notifications.compactMap { if case .attemptStarted(let a) = $0 { a } else { nil } }
        #expect(started.map(\.annotations.retryReason) == [nil, "503", "503"])
        #expect(observer.finishedExchanges.first?.attemptCount == 3)
    }

    @Test func observersAreMultiplexedInOrder() async throws {
        let first = InMemoryClientObserver()
        let second = InMemoryClientObserver()
        let client = makeClient(CannedTransport(RawResponse(status: .noContent)), observer: MultiplexClientObserver([first, second]))
        _ = try await client.send(Ping())
        #expect(first.notifications.count == 4)
        #expect(second.notifications.count == 4)
    }
}
