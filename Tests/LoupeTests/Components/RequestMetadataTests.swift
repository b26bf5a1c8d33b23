import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct RequestMetadataTests {
    @Test func metadataReachesMiddlewareAndTheRecorderButNotTheWire() async throws {
        let observer = InMemoryClientObserver()
        let seen = Recorded<RequestMetadata>()
        let fields = Recorded<HTTPFields>()
        let client = makeComponentsClient(MockTransport { request, _, _ in
            seen.append(RequestMetadata.current)
            fields.append(request.headerFields)
            return RawResponse(status: .noContent)
        }, middlewares: [RequestMetadataMiddleware()], observer: observer)

        _ = try await client.send(Ping(), metadata: RequestMetadata(priority: .high, cachePolicy: .reloadIgnoringCache))
        _ = try await client.send(Ping())

        #expect(seen.values.map(\.priority) == [.high, .normal])
        #expect(seen.values.map(\.cachePolicy) == [.reloadIgnoringCache, nil])
        #expect(observer.startedAnnotations.map { $0.extra["priority"] } == ["high", nil])
        #expect(observer.startedAnnotations.map { $0.extra["cache-policy"] } == ["reload", nil])
        #expect(fields.values[0] == fields.values[1])
    }

    @Test func anEndpointCarriesItsOwnMetadataUnlessTheCallerBindsSome() async throws {
        struct Prefetch: Endpoint {
            typealias Response = Data
            var path: String { "/prefetch" }
            var metadata: RequestMetadata? { RequestMetadata(priority: .low, cachePolicy: .returnCacheElseLoad) }
        }
        let seen = Recorded<RequestMetadata>()
        let client = makeComponentsClient(MockTransport { _, _, _ in
            seen.append(RequestMetadata.current)
            return RawResponse(status: .ok)
        })
        _ = try await client.send(Prefetch())
        _ = try await client.send(Prefetch(), metadata: RequestMetadata(priority: .high))
        _ = try await client.send(Ping())
        #expect(seen.values.map(\.priority) == [.low, .high, .normal])
        #expect(seen.values.map(\.cachePolicy) == [.returnCacheElseLoad, nil, nil])
    }

    @Test func anExchangeRunsAtItsRequestsTaskPriority() async throws {
        let seen = Recorded<TaskPriority>()
        let client = makeComponentsClient(MockTransport { _, _, _ in
            seen.append(Task.currentPriority)
            return RawResponse(status: .ok)
        })
        // (A `low` exchange awaited by this medium-priority test would be escalated to medium, as Swift does for
        // any awaited task, so only `high` shows here.)
        let caller = Task.currentPriority
        _ = try await client.send(Ping(), metadata: RequestMetadata(priority: .high))
        _ = try await client.send(Ping())
        #expect(seen.values == [.high, caller])
    }

    @Test func prioritiesOrder() {
        #expect(RequestPriority.low < .normal && RequestPriority.normal < .high)
        #expect(RequestPriority(rawValue: 5).description == "5")
    }
}
