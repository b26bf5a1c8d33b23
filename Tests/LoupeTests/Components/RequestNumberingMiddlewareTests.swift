import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct RequestNumberingMiddlewareTests {
    static let header = HTTPField.Name("X-Request-Number")!

    @Test func numbersRequestsInOrderFromOne() async throws {
        let observer = InMemoryClientObserver()
        let seen = Recorded<String>()
        let client = makeComponentsClient(MockTransport { request, _, _ in
            seen.append(request.headerFields[Self.header] ?? "none")
            return RawResponse(status: .noContent)
        }, middlewares: [RequestNumberingMiddleware()], observer: observer)
        for _ in 0..<3 { _ = try await client.send(Ping()) }
        #expect(seen.values == ["1", "2", "3"])
        #expect(observer.startedAnnotations.map { $0.extra["request-number"] } == ["1", "2", "3"])
    }

    @Test func headerNameAndFirstNumberAreConfigurable() async throws {
        let name = HTTPField.Name("Request-Seq")!
        let seen = Recorded<String>()
        let client = makeComponentsClient(MockTransport { request, _, _ in
            seen.append(request.headerFields[name] ?? "none")
            #expect(request.headerFields[Self.header] == nil)
            return RawResponse(status: .noContent)
        }, middlewares: [RequestNumberingMiddleware(headerName: name, first: 100)])
        _ = try await client.send(Ping())
        _ = try await client.send(Ping())
        #expect(seen.values == ["100", "101"])
    }

    @Test func concurrentRequestsGetDistinctNumbersFromOneCounter() async throws {
        let seen = Recorded<Int>()
        let numbering = RequestNumberingMiddleware()
        let transport = MockTransport { request, _, _ in
            seen.append(Int(request.headerFields[Self.header] ?? "") ?? -1)
            return RawResponse(status: .noContent)
        }
        // Two clients sharing one middleware value still share its counter: it is client-wide by construction.
        let first = makeComponentsClient(transport, middlewares: [numbering])
        let second = makeComponentsClient(transport, middlewares: [numbering])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { _ = try await (index.isMultiple(of: 2) ? first : second).send(Ping()) }
            }
            try await group.waitForAll()
        }
        #expect(seen.values.sorted() == Array(1...200))
    }
}
