import Foundation
import HTTPTypes

/// Where ``ConditionalGETMiddleware`` keeps validated responses; implement it for a disk or shared cache.
public protocol ResponseCacheStore: Sendable {
    /// The entry stored for `key`, if any (a read counts as a use for eviction).
    func entry(for key: ResponseCacheKey) async -> CachedResponse?
    /// Stores `entry` under `key`, replacing any older one.
    func store(_ entry: CachedResponse, for key: ResponseCacheKey) async
    /// Forgets the entry for `key`.
    func removeEntry(for key: ResponseCacheKey) async
}

/// What identifies a cached response: the absolute URL of a GET (scheme, authority, path and query).
///
/// Header fields are not part of the key (no `Vary` support), so one cache should serve one user's credentials.
public struct ResponseCacheKey: Hashable, Sendable, CustomStringConvertible {
    /// `scheme://authority/path?query`.
    public var url: String

    /// The key of `request`.
    public init(_ request: HTTPRequest) {
        url = "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "/")"
    }

    public var description: String { url }
}

/// A stored response and its validators.
public struct CachedResponse: Sendable, Hashable {
    /// The stored head (status 200).
    public var head: HTTPResponse
    /// The stored body.
    public var body: Data
    /// When it was stored or last revalidated.
    public var storedAt: Date

    /// Stores `head` and `body`, validated at `storedAt`.
    public init(head: HTTPResponse, body: Data, storedAt: Date) {
        self.head = head
        self.body = body
        self.storedAt = storedAt
    }

    /// The `ETag` validator.
    public var etag: String? { head.headerFields[.eTag] }
    /// The `Last-Modified` validator.
    public var lastModified: String? { head.headerFields[.lastModified] }

    /// Bytes this entry holds: body plus header names and values, for the cache's byte limit.
    public var cost: Int {
        body.count + head.headerFields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count }
    }
}
