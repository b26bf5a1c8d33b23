import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Loupe
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The request head as swift-http-types has it, for the recorder: the head HTTPTypesFoundation's `httpRequest`
    /// makes, with the URL's absolute string split by hand (``AdapterRequestHead``, as `RecordingHTTPClient` splits
    /// AsyncHTTPClient's) instead of parsed again by `URLComponents`, which was most of what
    /// `httpRequest` cost per recorded request. A URL that is not
    /// `http://…` or `https://…` (`ws`/`wss`, which `httpRequest` turns into an extended CONNECT; anything not
    /// `scheme://…`) still goes through `httpRequest`.
    package var recordedHead: HTTPRequest? {
        guard let url, let target = AdapterRequestHead.split(url.absoluteString),
              target.scheme == "http" || target.scheme == "https" else { return httpRequest }
        guard let method = HTTPRequest.Method(httpMethod ?? "GET") else { return nil }
        var fields = HTTPFields()
        if let all = allHTTPHeaderFields, !all.isEmpty {
            fields.reserveCapacity(all.count)
            for (name, value) in all {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, latin1: value)) }
            }
        }
        return HTTPRequest(method: method, scheme: target.scheme, authority: target.authority, path: target.path,
                           headerFields: fields)
    }
}

extension URLSessionConfiguration {
    /// The configuration's additional header fields as swift-http-types fields, the one named `except` left out:
    /// what a session adds to every request it sends, for the recorded head (``HTTPRequest/addMissing(_:)``).
    func additionalFields(except excluded: String? = nil) -> [(HTTPField.Name, String)] {
        (httpAdditionalHeaders ?? [:]).compactMap { name, value in
            guard let name = (name as? String).flatMap({ HTTPField.Name($0) }), name.rawName != excluded,
                  let value = value as? String else { return nil }
            return (name, value)
        }
    }
}

extension HTTPRequest {
    /// `fields` added where the request has no field of that name: a session's additional headers as it sends them
    /// (the request's own fields win).
    mutating func addMissing(_ fields: [(HTTPField.Name, String)]) {
        for (name, value) in fields where headerFields[name] == nil { headerFields[name] = value }
    }
}

extension HTTPField {
    /// A field whose value Foundation holds as ISO Latin-1 text, as HTTPTypesFoundation makes it: the bytes back,
    /// and a space for any character outside Latin-1.
    init(name: HTTPField.Name, latin1 value: String) {
        if value.utf8.allSatisfy({ $0 < 0x80 }) {
            self.init(name: name, value: value)
        } else {
            self.init(name: name, value: value.unicodeScalars.map { $0.value > 0xFF ? 0x20 : UInt8($0.value) })
        }
    }
}
