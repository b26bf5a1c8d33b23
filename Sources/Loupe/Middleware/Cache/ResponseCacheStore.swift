import Foundation
import HTTPTypes

/// Where ``ConditionalGETMiddleware`` keeps validated responses; implement it for a disk or shared cache.
public protocol ResponseCacheStore: Sendable {
    /// The entry stored for `key`, if any (a read counts as a use for eviction).
    nonisolated(nonsending) func entry(for key: ResponseCacheKey) async -> CachedResponse?
    /// Stores `entry` under `key`, replacing any older one.
    nonisolated(nonsending) func store(_ entry: CachedResponse, for key: ResponseCacheKey) async
    /// Forgets the entry for `key`.
    nonisolated(nonsending) func removeEntry(for key: ResponseCacheKey) async
}

/// What identifies a cached response: the absolute URL of a GET (scheme, authority, path and query).
///
/// One entry per URL: a response that says `Vary` is only used for requests that match it (see
/// ``CachedResponse/matches(_:)``), and a different variant replaces it. `Authorization` is added after the cache
/// looks (inside retry), so one cache should serve one user's credentials.
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
    /// The request's values of the fields the response's `Vary` names, as they were when it was stored.
    public var selectingFields: [String: String]

    /// Stores `head` and `body`, validated at `storedAt`, for the request whose fields were `request`.
    public init(head: HTTPResponse, body: Data, storedAt: Date, request: HTTPFields = [:]) {
        self.head = head
        self.body = body
        self.storedAt = storedAt
        self.selectingFields = Self.selecting(Self.varyNames(head.headerFields) ?? [], in: request)
    }

    /// Whether the response may answer a request with these fields (RFC 9111 §4.1): every field its `Vary` names
    /// has the value it had when stored. `Vary: *` matches nothing.
    public func matches(_ request: HTTPFields) -> Bool {
        guard let names = Self.varyNames(head.headerFields) else { return false }
        return names.isEmpty || Self.selecting(names, in: request) == selectingFields
    }

    /// Whether a response with these fields may be stored at all (`Vary: *` may not).
    public static func isStorable(_ fields: HTTPFields) -> Bool {
        varyNames(fields) != nil
    }

    /// The lowercased field names of every `Vary`, or `nil` for `Vary: *`.
    static func varyNames(_ fields: HTTPFields) -> [String]? {
        var names: [String] = []
        for value in fields[values: .vary] {
            for name in value.split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
                if trimmed == "*" { return nil }
                if !trimmed.isEmpty { names.append(trimmed) }
            }
        }
        return names
    }

    /// Each named field's values, joined as one line would carry them; absent fields are absent.
    private static func selecting(_ names: [String], in fields: HTTPFields) -> [String: String] {
        var selected: [String: String] = [:]
        for name in names {
            guard let field = HTTPField.Name(name) else { continue }
            let values = fields[values: field]
            if !values.isEmpty { selected[name] = values.joined(separator: ", ") }
        }
        return selected
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
