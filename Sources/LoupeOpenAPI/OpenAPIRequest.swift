import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// A generated client's request made absolute: swift-openapi-runtime hands transports and middleware a request
/// whose path is relative to `baseURL` and whose scheme and authority are unset.
enum OpenAPIRequest {
    /// `request` with the scheme, authority and path prefix of `baseURL`; its fields are the same storage (no
    /// conversion: both sides speak swift-http-types).
    static func absolute(_ request: HTTPRequest, baseURL: URL, cache: BaseURLCache? = nil) -> HTTPRequest {
        let parts = cache?.parts(of: baseURL) ?? BaseURLCache.Parts(baseURL)
        // The scheme and authority fields were made (their values checked) once per base URL, and the path's field
        // is the request's own unless the base URL has a path: no field value is checked again per request
        // at all. The first write copies the pseudo-header storage `request` shares; the others find it
        // unshared (each write on a shared copy copied it again).
        var absolute = request
        absolute.pseudoHeaderFields.scheme = parts.schemeField
        if let authority = parts.authorityField { absolute.pseudoHeaderFields.authority = authority }
        if !parts.prefix.isEmpty { absolute.path = parts.prefix + (request.path ?? "") }
        return absolute
    }

    /// The body's bytes when its length is known and at most `cap`: read once (a generated client's JSON body is
    /// one in-memory chunk) straight into `Data`, what the recorder and Loupe's client keep (collecting a
    /// `ByteChunk` first and converting it copied the bytes twice). When the body can be iterated
    /// only once it is handed on as a new body of the same bytes (its one chunk, shared, when it had one). A longer
    /// or unknown-length body is left streaming and not read to be recorded.
    /// Runs on its caller's executor (`nonisolated(nonsending)`): no hop, nor check for one, on every call.
    nonisolated(nonsending) static func smallBody(_ body: HTTPBody?, cap: Int) async throws -> (bytes: Data?, body: HTTPBody?) {
        guard let body, case .known(let length) = body.length, length <= cap else { return (nil, body) }
        var iterator = body.makeAsyncIterator()
        guard let first = try await iterator.next() else {
            return (Data(), body.iterationBehavior == .multiple ? body : HTTPBody())
        }
        guard first.count <= cap else { throw LongerThanItsLength(length: length) }
        var data = Data(first)
        var chunks = 1
        while let chunk = try await iterator.next() {
            guard data.count + chunk.count <= cap else { throw LongerThanItsLength(length: length) }
            data.append(contentsOf: chunk)
            chunks += 1
        }
        if body.iterationBehavior == .multiple { return (data, body) }
        return (data, chunks == 1 ? HTTPBody(first) : HTTPBody(data))
    }

    /// A body that said it was `length` bytes long and went on past the cap.
    struct LongerThanItsLength: Error, CustomStringConvertible {
        let length: Int64
        var description: String { "the body said it was \(length) bytes long, and went on past the recorder's cap" }
    }
}

/// The scheme, authority and path prefix of the last `baseURL` an adapter saw: a generated client passes the same
/// one on every call, and reading them from `URL` each time re-parsed them on every request (perf, AdapterProfile).
final class BaseURLCache: Sendable {
    struct Parts: Sendable {
        let key: String
        let scheme: String?
        let authority: String?
        let prefix: String
        /// `scheme` and `authority` as the request's pseudo-header fields.
        let schemeField: HTTPField?
        let authorityField: HTTPField?

        init(_ baseURL: URL) {
            key = baseURL.absoluteString
            scheme = baseURL.scheme
            authority = baseURL.host.map { host in baseURL.port.map { "\(host):\($0)" } ?? host }
            var prefix = baseURL.path
            if prefix.hasSuffix("/") { prefix.removeLast() }
            self.prefix = prefix
            // Made by swift-http-types itself (the pseudo-header names are not public).
            let fields = HTTPRequest(method: .get, scheme: scheme, authority: authority, path: nil).pseudoHeaderFields
            schemeField = fields.scheme
            authorityField = fields.authority
        }
    }

    private let last = Mutex<Parts?>(nil)

    func parts(of baseURL: URL) -> Parts {
        let key = baseURL.absoluteString
        if let cached = last.withLock({ $0 }), cached.key == key { return cached }
        let parts = Parts(baseURL)
        last.withLock { $0 = parts }
        return parts
    }
}
