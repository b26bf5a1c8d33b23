import Foundation
import HTTPTypes

/// What makes two requests identical for ``DeduplicationMiddleware``: method, URL, the chosen header fields and
/// the body bytes.
///
/// The parts live in one immutable object with their hash computed once: the key is copied into and out of the
/// registry's state several times per request, and a copy is then one retain instead of one per part, and a
/// dictionary lookup hashes one integer instead of every string again.
struct DeduplicationKey: Hashable, Sendable, CustomStringConvertible {
    private final class Parts: Sendable {
        let method: HTTPRequest.Method
        let scheme: String?
        let authority: String?
        let path: String?
        let fields: [String?]
        /// Compared byte for byte, so two bodies never merge by a hash collision.
        let body: Data?
        let hash: Int

        init(method: HTTPRequest.Method, scheme: String?, authority: String?, path: String?, fields: [String?], body: Data?) {
            (self.method, self.scheme, self.authority, self.path, self.fields, self.body) =
                (method, scheme, authority, path, fields, body)
            var hasher = Hasher()
            hasher.combine(method)
            hasher.combine(scheme)
            hasher.combine(authority)
            hasher.combine(path)
            hasher.combine(fields)
            hasher.combine(body)
            hash = hasher.finalize()
        }

        func equals(_ other: Parts) -> Bool {
            hash == other.hash && method == other.method && scheme == other.scheme && authority == other.authority
                && path == other.path && fields == other.fields && body == other.body
        }
    }

    private let parts: Parts

    /// The key of `request`, or `nil` when its body is a stream (it cannot be compared without being read).
    init?(_ request: HTTPRequest, body: RequestBody?, fields names: [HTTPField.Name]) {
        if let body, body.bufferedData == nil { return nil }
        parts = Parts(
            method: request.method, scheme: request.scheme, authority: request.authority, path: request.path,
            fields: names.map { request.headerFields[$0] }, body: body?.bufferedData)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.parts === rhs.parts || lhs.parts.equals(rhs.parts)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(parts.hash)
    }

    var description: String {
        "\(parts.method) \(parts.scheme ?? "")://\(parts.authority ?? "")\(parts.path ?? "")"
    }
}
