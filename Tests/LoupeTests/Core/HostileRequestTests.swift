import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Synchronization
import Testing

/// Requests no transport could send, and failures that come after the response head: issue 8's transport classes.
@Suite struct HostileRequestTests {
    @Test(arguments: [
        ("example.com", nil), ("example.com:8080", nil), ("example.com:", nil), ("[::1]:443", nil), ("[::1]", nil),
        ("user:pw@example.com:1", nil), ("example.com:65535", nil), ("example.com:000080", nil),
        ("example.com:70000", "port 70000 is out of range (1-65535)"),
        ("example.com:65536", "port 65536 is out of range (1-65535)"),
        ("example.com:0", "port 0 is out of range (1-65535)"),
        ("example.com:99999999999999999999999", "port 99999999999999999999999 is out of range (1-65535)"),
        ("[::1]:123456", "port 123456 is out of range (1-65535)"),
        ("example.com:8o", "port '8o' is not a number"),
        (":80", "the URL has no host"), ("", "the URL has no host"), ("[::1:80", "the host '[::1:80' has no closing ']'"),
    ] as [(String, String?)])
    func authoritiesAreCheckedBeforeSending(authority: String, problem: String?) {
        #expect(RequestTargetCheck.problem(inAuthority: authority)?.message == problem)
    }

    @Test func aPortAboveTheRangeFailsAsAnEncodingErrorAndNeverReachesTheTransport() async throws {
        let sent = Recorded<HTTPRequest>()
        let observer = InMemoryClientObserver()
        let client = makeClient(MockTransport { request, _, _ in
            sent.append(request)
            return RawResponse(status: .ok)
        }, observer: observer, base: "http://127.0.0.1:1")
        let request = HTTPRequest(method: .post, url: URL(string: "http://127.0.0.1:70000/orders")!)
        let error = await #expect(throws: ClientError.self) { try await client.execute(request) }
        #expect(error?.stage == .encoding)
        #expect((error?.underlyingError as? InvalidRequestTargetError)?.message == "port 70000 is out of range (1-65535)")
        #expect(sent.values.isEmpty)
        #expect(observer.notifications.isEmpty, "nothing was sent, so nothing is recorded")
    }

    @Test func anEndpointOnABaseURLWithABadPortFailsTheSameWay() async throws {
        let client = makeClient(CannedTransport(RawResponse(status: .noContent)), base: "http://127.0.0.1:99999/v1")
        let error = await #expect(throws: ClientError.self) { try await client.send(Ping()) }
        #expect(error?.stage == .encoding)
        #expect("\(error?.underlyingError ?? CancellationError())" == "port 99999 is out of range (1-65535)")
    }

    @Test func aMiddlewareThatRewritesThePortIsCaughtBeforeTheTransport() async throws {
        let sent = Recorded<HTTPRequest>()
        let client = makeClient(MockTransport { request, _, _ in
            sent.append(request)
            return RawResponse(status: .ok)
        }, middlewares: [PortRewriter()])
        let error = await #expect(throws: ClientError.self) { try await client.send(Ping()) }
        #expect(error?.stage == .encoding)
        #expect(sent.values.isEmpty)
    }

    @Test func aBodyCutShortKeepsTheStatusHeadersAndBytesThatArrived() async throws {
        let observer = InMemoryClientObserver()
        let partial = RawResponse(
            status: .ok, headerFields: [.contentLength: "1000", .contentType: "text/plain"],
            body: Data(repeating: UInt8(ascii: "a"), count: 100))
        let client = makeClient(MockTransport { _, _, _ in
            throw TransportError(.connectionReset, "remote closed", partialResponse: partial)
        }, observer: observer)
        let error = await #expect(throws: ClientError.self) {
            try await client.execute(HTTPRequest(method: .get, url: URL(string: "https://api.example.com/big")!))
        }
        #expect(error?.stage == .transport)
        #expect(error?.response?.status == .ok)
        #expect(error?.response?.body.count == 100)

        let attempt = try #require(observer.finishedAttempts.first)
        #expect(attempt.response?.status == .ok)
        #expect(attempt.responseBody?.count == 100)
        #expect(attempt.error is TransportError)

        let finished = try #require(observer.finishedExchanges.first)
        #expect(finished.outcome == .transportError)
        #expect(finished.response?.headerFields[.contentType] == "text/plain")
        #expect(finished.responseBody?.count == 100)

        let event = try #require(observer.events.first { $0.kind == .incompleteResponse })
        #expect(event.message == "only 100 of 1000 body bytes arrived (HTTP 200): connection reset")
        #expect(event.attributes["receivedBytes"] == "100")
        #expect(event.attributes["expectedBytes"] == "1000")
    }

    @Test func aFailureWithoutAResponseStillRecordsNone() async throws {
        let observer = InMemoryClientObserver()
        let client = makeClient(MockTransport { _, _, _ in throw TransportError(.connectFailed, "refused") }, observer: observer)
        _ = await #expect(throws: ClientError.self) { try await client.send(Ping()) }
        #expect(observer.finishedExchanges.first?.response == nil)
        #expect(observer.events.isEmpty)
    }

    @Test func theTransportsHTTPVersionReachesTheResponse() async throws {
        let client = makeClient(CannedTransport(RawResponse(status: .ok, httpVersion: "HTTP/1.0")))
        let response = try await client.execute(HTTPRequest(method: .get, url: URL(string: "https://api.example.com/")!))
        #expect(response.httpVersion == "HTTP/1.0")
    }
}

/// Sends every request to port 70000, as a broken middleware might.
private struct PortRewriter: ClientMiddleware {
    nonisolated(nonsending) func intercept(
        _ request: HTTPRequest, body: RequestBody?, context: RequestContext,
        next: nonisolated(nonsending) @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse
    ) async throws -> RawResponse {
        var request = request
        request.authority = "api.example.com:70000"
        return try await next(request, body, context)
    }
}
