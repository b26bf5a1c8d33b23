import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPURLResponse {
    /// The response head as swift-http-types has it, for the recorder: the same fields as HTTPTypesFoundation's
    /// `httpResponse`, read from `allHeaderFields` as they are. `httpResponse` first casts that dictionary to
    /// `[String: String]`, which builds and hashes a second dictionary for every response: over a third of
    /// what a recorded request cost on FoundationNetworking.
    package var recordedHead: HTTPResponse? {
        guard (0...999).contains(statusCode) else { return nil }
        let all = allHeaderFields
        var fields = HTTPFields()
        fields.reserveCapacity(all.count)
        for (key, value) in all {
            guard let name = (key.base as? String).flatMap({ HTTPField.Name($0) }), let value = value as? String else { continue }
            fields.append(HTTPField(name: name, latin1: value))
        }
        return HTTPResponse(status: .init(code: statusCode), headerFields: fields)
    }
}
