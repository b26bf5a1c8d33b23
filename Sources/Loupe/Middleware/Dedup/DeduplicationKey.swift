import Foundation
import HTTPTypes

/// What makes two requests identical for ``DeduplicationMiddleware``: method, URL, the chosen header fields and
/// the body bytes.
struct DeduplicationKey: Hashable, Sendable, CustomStringConvertible {
    var method: HTTPRequest.Method
    var scheme: String?
    var authority: String?
    var path: String?
    var fields: [String?]
    /// Compared byte for byte, so two bodies never merge by a hash collision.
    var body: Data?

    /// The key of `request`, or `nil` when its body is a stream (it cannot be compared without being read).
    init?(_ request: HTTPRequest, body: RequestBody?, fields names: [HTTPField.Name]) {
        if let body, body.bufferedData == nil { return nil }
        method = request.method
        scheme = request.scheme
        authority = request.authority
        path = request.path
        fields = names.map { request.headerFields[$0] }
        self.body = body?.bufferedData
    }

    var description: String { "\(method) \(scheme ?? "")://\(authority ?? "")\(path ?? "")" }
}
