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

    @Test func prioritiesOrder() {
        #expect(RequestPriority.low < .normal && RequestPriority.normal < .high)
        #expect(RequestPriority(rawValue: 5).description == "5")
    }
}
