import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A generated client's request made absolute: swift-openapi-runtime hands transports and middleware a request
/// whose path is relative to `baseURL` and whose scheme and authority are unset.
enum OpenAPIRequest {
    /// `request` with the scheme, authority and path prefix of `baseURL`; its fields are the same storage (no
    /// conversion: both sides speak swift-http-types).
    static func absolute(_ request: HTTPRequest, baseURL: URL) -> HTTPRequest {
        var absolute = request
        absolute.scheme = baseURL.scheme
        if let host = baseURL.host {
            absolute.authority = baseURL.port.map { "\(host):\($0)" } ?? host
        }
        var prefix = baseURL.path
        if prefix.hasSuffix("/") { prefix.removeLast() }
        if !prefix.isEmpty { absolute.path = prefix + (request.path ?? "") }
        return absolute
    }

    /// The body's bytes when its length is known and at most `cap`: read once (a generated client's JSON body is
    /// one in-memory chunk) and, when the body can be iterated only once, handed on as a new body of those bytes.
    /// A longer or unknown-length body is left streaming and not read to be recorded.
    static func smallBody(_ body: HTTPBody?, cap: Int) async throws -> (bytes: HTTPBody.ByteChunk?, body: HTTPBody?) {
        guard let body, case .known(let length) = body.length, length <= cap else { return (nil, body) }
        let bytes = try await HTTPBody.ByteChunk(collecting: body, upTo: cap)
        return (bytes, body.iterationBehavior == .multiple ? body : HTTPBody(bytes))
    }
}
