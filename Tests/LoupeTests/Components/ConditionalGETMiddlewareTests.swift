import Foundation
import HTTPTypes
@testable import Loupe
import LoupeTesting
import Synchronization
import Testing

/// An in-process resource with a version: answers 304 to a matching validator, 200 with the body otherwise.
final class VersionedResource: Sendable {
    struct State {
        var body = "hello"
        var etag: String? = #""v1""#
        var lastModified: String?
        var extraFields: HTTPFields = [:]
        var received: [HTTPRequest] = []
        var notModified = 0
    }

    let state = Mutex(State())

    func change(_ update: (inout State) -> Void) { state.withLock { update(&$0) } }
    var received: [HTTPRequest] { state.withLock { $0.received } }
    var notModified: Int { state.withLock { $0.notModified } }

    var transport: MockTransport {
        MockTransport { request, _, _ in
            self.state.withLock { state in
                state.received.append(request)
                var fields = state.extraFields
                if let etag = state.etag { fields[.eTag] = etag }
                if let lastModified = state.lastModified { fields[.lastModified] = lastModified }
                let etagMatches = state.etag != nil && request.headerFields[.ifNoneMatch] == state.etag
                let dateMatches = state.lastModified != nil && request.headerFields[.ifModifiedSince] == state.lastModified
                if etagMatches || dateMatches {
                    state.notModified += 1
                    fields[HTTPField.Name("X-Revalidated-At")!] = "\(state.notModified)"
                    return RawResponse(status: .notModified, headerFields: fields)
                }
                fields[.contentType] = "text/plain"
                fields[.contentLength] = "\(state.body.utf8.count)"
                return RawResponse(status: .ok, headerFields: fields, body: Data(state.body.utf8))
            }
        }
    }
}

struct Greeting: Endpoint {
    typealias Response = String
    var path: String { "/greeting" }
}

@Suite struct ConditionalGETMiddlewareTests {
    func client(_ resource: VersionedResource, cache: ConditionalGETMiddleware, observer: InMemoryClientObserver = .init()) -> Client {
        makeComponentsClient(resource.transport, middlewares: [cache], observer: observer)
    }

    @Test func aStoredETagIsRevalidatedAndA304ReturnsTheCachedBody() async throws {
        let resource = VersionedResource()
        let observer = InMemoryClientObserver()
        let store = InMemoryResponseCache()
        let client = client(resource, cache: ConditionalGETMiddleware(store: store), observer: observer)

        let first = try await client.response(Greeting())
        #expect(first.value == "hello")
        #expect(first.headerFields[.loupeCache] == nil)
        #expect(store.count == 1)

        let second = try await client.response(Greeting())
        #expect(resource.received.map { $0.headerFields[.ifNoneMatch] } == [nil, #""v1""#])
        #expect(resource.notModified == 1)
        #expect(second.value == "hello")
        #expect(second.status == .ok)
        #expect(second.headerFields[.loupeCache] == "revalidated")
        #expect(second.headerFields[.contentLength] == "5")
        #expect(second.headerFields[HTTPField.Name("X-Revalidated-At")!] == "1")
        #expect(second.attempts.map(\.status) == [304])

        let revalidations = observer.events.filter { $0.kind == .cacheRevalidation }
        #expect(revalidations.count == 1)
        #expect(revalidations.first?.exchangeID == second.exchangeID)
        #expect(revalidations.first?.attributes["outcome"] == "not-modified")
        #expect(revalidations.first?.attributes["validator"] == #""v1""#)
        #expect(observer.startedAnnotations.map { $0.extra["cache"] } == ["miss", "revalidate"])
        let finished = try #require(observer.finishedExchanges.last)
        #expect(finished.outcome == .success && finished.response?.status == .ok && finished.responseBody == Data("hello".utf8))
    }

    @Test func lastModifiedIsRevalidatedWithIfModifiedSince() async throws {
        let resource = VersionedResource()
        let date = "Wed, 21 Oct 2015 07:28:00 GMT"
        resource.change { $0.etag = nil; $0.lastModified = date }
        let client = client(resource, cache: ConditionalGETMiddleware())
        _ = try await client.send(Greeting())
        #expect(try await client.send(Greeting()) == "hello")
        #expect(resource.received.map { $0.headerFields[.ifModifiedSince] } == [nil, date])
        #expect(resource.received.allSatisfy { $0.headerFields[.ifNoneMatch] == nil })
        #expect(resource.notModified == 1)
    }

    @Test func aChangedResourceReplacesTheEntry() async throws {
        let resource = VersionedResource()
        let observer = InMemoryClientObserver()
        let client = client(resource, cache: ConditionalGETMiddleware(), observer: observer)
        _ = try await client.send(Greeting())
        resource.change { $0.body = "bonjour"; $0.etag = #""v2""# }
        #expect(try await client.send(Greeting()) == "bonjour")
        #expect(try await client.send(Greeting()) == "bonjour")
        #expect(resource.received.map { $0.headerFields[.ifNoneMatch] } == [nil, #""v1""#, #""v2""#])
        #expect(observer.events.filter { $0.kind == .cacheRevalidation }.compactMap { $0.attributes["outcome"] } == ["modified", "not-modified"])
    }

    @Test func aVaryingResponseOnlyAnswersRequestsWithTheSameVaryingFields() async throws {
        struct Localized: Endpoint {
            typealias Response = String
            let language: String
            var path: String { "/greeting" }
            var headers: HTTPFields { [.acceptLanguage: language] }
        }
        let resource = VersionedResource()
        resource.change { $0.extraFields[.vary] = "Accept-Language, Accept-Encoding" }
        let client = client(resource, cache: ConditionalGETMiddleware())
        _ = try await client.send(Localized(language: "fr"))
        _ = try await client.send(Localized(language: "fr"))   // same variant: revalidated
        _ = try await client.send(Localized(language: "de"))   // another variant: no validator sent, replaces it
        _ = try await client.send(Localized(language: "de"))
        _ = try await client.send(Localized(language: "fr"))   // the fr entry was replaced
        #expect(resource.received.map { $0.headerFields[.ifNoneMatch] } == [nil, #""v1""#, nil, #""v1""#, nil])
        #expect(resource.notModified == 2)
    }

    @Test func varyStarIsNeverStored() async throws {
        let resource = VersionedResource()
        resource.change { $0.extraFields[.vary] = "*" }
        let store = InMemoryResponseCache()
        let client = client(resource, cache: ConditionalGETMiddleware(store: store))
        _ = try await client.send(Greeting())
        _ = try await client.send(Greeting())
        #expect(store.count == 0)
        #expect(resource.received.allSatisfy { $0.headerFields[.ifNoneMatch] == nil })
    }

    @Test func varyMatchingComparesEveryNamedFieldCaseInsensitively() {
        let head = HTTPResponse(status: .ok, headerFields: [.vary: "accept, X-Tenant", .eTag: #""v""#])
        let stored = CachedResponse(head: head, body: Data(), storedAt: Date(), request: [.accept: "application/json"])
        #expect(stored.matches([.accept: "application/json"]))
        #expect(!stored.matches([.accept: "text/html"]))
        #expect(!stored.matches([.accept: "application/json", HTTPField.Name("X-Tenant")!: "a"]))
        #expect(CachedResponse(head: HTTPResponse(status: .ok), body: Data(), storedAt: Date()).matches([.accept: "x"]))
        #expect(!CachedResponse.isStorable([.vary: "Accept, *"]))
    }

    @Test func noStoreResponsesAreNotCachedAndEvictOlderEntries() async throws {
        let resource = VersionedResource()
        let store = InMemoryResponseCache()
        let client = client(resource, cache: ConditionalGETMiddleware(store: store))
        resource.change { $0.extraFields = [.cacheControl: "private, no-store"] }
        _ = try await client.send(Greeting())
        _ = try await client.send(Greeting())
        #expect(store.count == 0)
        #expect(resource.received.allSatisfy { $0.headerFields[.ifNoneMatch] == nil })

        resource.change { $0.extraFields = [:] }
        _ = try await client.send(Greeting())
        #expect(store.count == 1)
        resource.change { $0.extraFields = [.cacheControl: "no-store"]; $0.etag = #""v2""# }
        _ = try await client.send(Greeting())
        #expect(store.count == 0)
    }

    @Test func aRequestSayingNoStoreBypassesTheCache() async throws {
        let resource = VersionedResource()
        let store = InMemoryResponseCache()
        let client = client(resource, cache: ConditionalGETMiddleware(store: store))
        _ = try await client.execute(get("https://api.example.com/v1/greeting", headers: [.cacheControl: "no-store"]))
        #expect(store.count == 0)
    }

    @Test func responsesWithoutValidatorsAndNonGETsAreNotStored() async throws {
        let resource = VersionedResource()
        resource.change { $0.etag = nil }
        let store = InMemoryResponseCache()
        let client = client(resource, cache: ConditionalGETMiddleware(store: store))
        _ = try await client.send(Greeting())
        resource.change { $0.etag = #""v1""# }
        _ = try await client.execute(HTTPRequest(method: .post, url: URL(string: "https://api.example.com/v1/greeting")!))
        #expect(store.count == 0)
    }

    @Test func callerValidatorsPassThroughAndTheirA304IsReturnedAsIs() async throws {
        let resource = VersionedResource()
        let client = client(resource, cache: ConditionalGETMiddleware())
        _ = try await client.send(Greeting())
        let response = try await client.execute(get("https://api.example.com/v1/greeting", headers: [.ifNoneMatch: #""v1""#]))
        #expect(response.status == .notModified)
        #expect(response.body.isEmpty)
        #expect(response.headerFields[.loupeCache] == nil)
    }

    @Test func returnCacheElseLoadAnswersWithoutTheServer() async throws {
        let resource = VersionedResource()
        let observer = InMemoryClientObserver()
        let client = client(resource, cache: ConditionalGETMiddleware(), observer: observer)
        let policy = RequestMetadata(cachePolicy: .returnCacheElseLoad)
        #expect(try await client.send(Greeting(), metadata: policy) == "hello")
        resource.change { $0.body = "changed"; $0.etag = #""v2""# }
        let cached = try await client.response(Greeting(), metadata: policy)
        #expect(cached.value == "hello")
        #expect(cached.headerFields[.loupeCache] == "hit")
        #expect(cached.attempts.isEmpty)
        #expect(resource.received.count == 1)
        #expect(observer.events.map(\.kind) == [.cacheHit])
    }

    @Test func reloadIgnoresTheEntryButStoresTheAnswer() async throws {
        let resource = VersionedResource()
        let client = client(resource, cache: ConditionalGETMiddleware())
        _ = try await client.send(Greeting())
        resource.change { $0.body = "fresh"; $0.etag = #""v2""# }
        #expect(try await client.send(Greeting(), metadata: RequestMetadata(cachePolicy: .reloadIgnoringCache)) == "fresh")
        #expect(try await client.send(Greeting()) == "fresh")
        #expect(resource.received.map { $0.headerFields[.ifNoneMatch] } == [nil, nil, #""v2""#])
    }

    @Test func bypassNeitherReadsNorWrites() async throws {
        let resource = VersionedResource()
        let store = InMemoryResponseCache()
        let client = client(resource, cache: ConditionalGETMiddleware(store: store, defaultPolicy: .bypassCache))
        _ = try await client.send(Greeting())
        _ = try await client.send(Greeting())
        #expect(store.count == 0)
        #expect(resource.received.allSatisfy { $0.headerFields[.ifNoneMatch] == nil })
    }

    @Test func aPolicyPerEndpointAppliesUnlessTheCallOverridesIt() async throws {
        let resource = VersionedResource()
        let client = client(resource, cache: ConditionalGETMiddleware(operationPolicies: ["GET /greeting": .returnCacheElseLoad]))
        _ = try await client.send(Greeting())
        _ = try await client.send(Greeting())
        #expect(resource.received.count == 1)
        _ = try await client.send(Greeting(), metadata: RequestMetadata(cachePolicy: .useCache))
        #expect(resource.received.count == 2 && resource.notModified == 1)
    }

    @Test func aNotModifiedUpdatesStoredFieldsButNotFraming() {
        let stored = HTTPResponse(status: .ok, headerFields: [.eTag: "a", .contentLength: "5", .cacheControl: "max-age=1"])
        let fresh = HTTPResponse(status: .notModified, headerFields: [.eTag: "a", .contentLength: "0", .cacheControl: "max-age=60"])
        let merged = ConditionalGETMiddleware.merge(stored, with: fresh)
        #expect(merged.headerFields[.contentLength] == "5")
        #expect(merged.headerFields[.cacheControl] == "max-age=60")
        #expect(merged.status == .ok)
    }
}
