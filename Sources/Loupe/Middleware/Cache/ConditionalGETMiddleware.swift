import Foundation
import HTTPTypes

/// Revalidates GET responses with `ETag` / `Last-Modified`, so an unchanged resource costs a 304 instead of a body.
///
/// A 200 carrying a validator (and no `Cache-Control: no-store`) is stored. The next GET of the same URL is sent
/// with `If-None-Match` / `If-Modified-Since`; a 304 comes back to the caller as the stored 200 with the 304's
/// updated header fields, marked `Loupe-Cache: revalidated`, and recorded as a `cache-revalidation` event. The
/// attempt itself records the real 304 and the annotation `cache`. The policy comes from the call's
/// ``RequestMetadata/cachePolicy``, else the endpoint's entry in ``operationPolicies``, else ``defaultPolicy``.
/// Requests that set their own validators, say `Cache-Control: no-store`, or stream their body to a file pass
/// straight through. `Vary` is honoured: an entry answers (and validates) only requests whose varying fields match
/// the ones it was stored for, and a `Vary: *` response is never stored.
public struct ConditionalGETMiddleware: ClientMiddleware {
    /// Where responses are kept.
    public let store: any ResponseCacheStore
    /// The policy for requests whose metadata sets none.
    public let defaultPolicy: CachePolicy
    /// Per-endpoint policies, keyed by operation name (`Endpoint.operationName`).
    public let operationPolicies: [String: CachePolicy]
    /// The header that marks a response served from the cache (`revalidated` or `hit`); `nil` adds none.
    public let markerHeader: HTTPField.Name?
    private let now: @Sendable () -> Date

    /// Caches in `store` with `defaultPolicy` (or `operationPolicies` per endpoint), marking cached answers with
    /// `markerHeader`; `now` stamps entries.
    public init(
        store: any ResponseCacheStore = InMemoryResponseCache(),
        defaultPolicy: CachePolicy = .useCache,
        operationPolicies: [String: CachePolicy] = [:],
        markerHeader: HTTPField.Name? = .loupeCache,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.defaultPolicy = defaultPolicy
        self.operationPolicies = operationPolicies
        self.markerHeader = markerHeader
        self.now = now
    }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        let metadata = RequestMetadata.current
        let policy = metadata.cachePolicy ?? operationPolicies[context.operation] ?? defaultPolicy
        guard request.method == .get, !metadata.streamsResponseBody, policy != .bypassCache,
              !Self.forbidsStorage(request.headerFields),
              request.headerFields[.ifNoneMatch] == nil, request.headerFields[.ifModifiedSince] == nil
        else { return try await next(request, body, context) }

        let key = ResponseCacheKey(request)
        let stored = policy == .reloadIgnoringCache ? nil : await store.entry(for: key)
        // Another variant (say, for another `Accept`) is no answer and no validator for this request.
        let cached = stored.flatMap { $0.matches(request.headerFields) ? $0 : nil }
        var request = request
        var context = context
        if let cached, policy == .returnCacheElseLoad {
            context.record(.cacheHit, "returned the cached response without asking the server",
                           attributes: ["key": key.url, "bytes": "\(cached.body.count)"])
            return served(cached, as: "hit")
        }
        if let cached {
            if let etag = cached.etag { request.headerFields[.ifNoneMatch] = etag }
            if let lastModified = cached.lastModified { request.headerFields[.ifModifiedSince] = lastModified }
            context.annotations.note("cache", "revalidate")
        } else {
            context.annotations.note("cache", policy == .reloadIgnoringCache ? "reload" : "miss")
        }

        let response = try await next(request, body, context)
        if response.status.code == 304, let cached {
            var refreshed = CachedResponse(head: Self.merge(cached.head, with: response.head), body: cached.body, storedAt: now())
            refreshed.selectingFields = cached.selectingFields
            if Self.forbidsStorage(response.head.headerFields) || !CachedResponse.isStorable(refreshed.head.headerFields) {
                await store.removeEntry(for: key)
            } else {
                await store.store(refreshed, for: key)
            }
            context.record(.cacheRevalidation, "304 Not Modified: returned the cached body", attributes: [
                "key": key.url, "outcome": "not-modified", "validator": cached.etag ?? cached.lastModified ?? "",
                "bytes": "\(cached.body.count)",
            ])
            return served(refreshed, as: "revalidated")
        }
        if cached != nil {
            let changed = response.status.code == 200
            context.record(.cacheRevalidation, changed
                           ? "the resource changed: a new body replaces the cached one"
                           : "revalidation answered \(response.status.code): passed on, cached body kept",
                           attributes: ["key": key.url, "outcome": changed ? "modified" : "failed", "status": "\(response.status.code)"])
        }
        await keep(response, for: key, request: request.headerFields, replacing: stored != nil || policy == .reloadIgnoringCache)
        return response
    }

    /// Stores a 200 that has a validator and allows storage; any other 200, or a `no-store`, drops the old entry
    /// (when there was one: most responses have no validator, and the store need not hear about each).
    private nonisolated(nonsending) func keep(_ response: RawResponse, for key: ResponseCacheKey, request: HTTPFields, replacing hadEntry: Bool) async {
        let fields = response.head.headerFields
        let forbidden = Self.forbidsStorage(fields) || !CachedResponse.isStorable(fields)
        if response.status.code == 200, !forbidden, fields[.eTag] != nil || fields[.lastModified] != nil {
            let entry = CachedResponse(head: response.head, body: response.body, storedAt: now(), request: request)
            await store.store(entry, for: key)
        } else if hadEntry, forbidden || response.status.code == 200 {
            await store.removeEntry(for: key)
        }
    }

    private func served(_ entry: CachedResponse, as marker: String) -> RawResponse {
        var head = entry.head
        head.status = .ok
        if let markerHeader { head.headerFields[markerHeader] = marker }
        return RawResponse(head: head, body: entry.body)
    }

    /// `Cache-Control: no-store` in any of the fields' values.
    static func forbidsStorage(_ fields: HTTPFields) -> Bool {
        fields[values: .cacheControl].contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "no-store" }
        }
    }

    /// The stored head updated with a 304's fields, as RFC 9111 §3.2 asks; body framing fields are kept.
    static func merge(_ stored: HTTPResponse, with notModified: HTTPResponse) -> HTTPResponse {
        let framing: Set<HTTPField.Name> = [.contentLength, .contentEncoding, .transferEncoding, .contentRange]
        var head = stored
        let updated = Set(notModified.headerFields.map(\.name)).subtracting(framing)
        for name in updated {
            head.headerFields[fields: name] = notModified.headerFields[fields: name]
        }
        return head
    }
}

extension HTTPField.Name {
    /// `Loupe-Cache`: marks a response ``ConditionalGETMiddleware`` answered from its cache.
    public static var loupeCache: Self { Self("Loupe-Cache")! }
}

extension ExchangeEventKind {
    /// A cached response was returned without asking the server (``CachePolicy/returnCacheElseLoad``).
    public static let cacheHit = Self(rawValue: "cache-hit")
}
