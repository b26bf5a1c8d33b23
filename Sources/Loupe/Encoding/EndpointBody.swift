import Foundation
import HTTPTypes

/// What an endpoint sends as its body.
public enum EndpointBody: Sendable {
    /// No body.
    case none
    /// Raw bytes with their content type.
    case data(Data, contentType: String)
    /// UTF-8 text (`text/plain` unless told otherwise).
    case text(String, contentType: String = "text/plain; charset=utf-8")
    /// Any `Encodable` value, encoded with the client's JSON encoder.
    case json(any Encodable & Sendable)
    /// `application/x-www-form-urlencoded` fields, in order.
    case form([URLQueryItem])
    /// A body built elsewhere (for example a stream), with its content type.
    case custom(RequestBody, contentType: String?)
    /// `multipart/form-data`; file parts are streamed from disk, and the exact length is known before sending.
    case multipart(MultipartForm)
    /// An `Encodable` value encoded with this endpoint's own JSON encoder instead of the client's.
    case jsonEncoded(any Encodable & Sendable, encoder: JSONEncoder)

    /// The body bytes and the content type they need.
    func encoded(with encoder: JSONEncoder) throws -> (RequestBody, String?)? {
        switch self {
        case .none:
            return nil
        case .data(let data, let contentType):
            return (.data(data), contentType)
        case .text(let text, let contentType):
            return (.string(text), contentType)
        case .json(let value):
            return (.data(try encoder.encode(value)), "application/json")
        case .form(let items):
            return (.data(Data(FormEncoding.encode(items).utf8)), "application/x-www-form-urlencoded")
        case .custom(let body, let contentType):
            return (body, contentType)
        case .multipart(let form):
            return (try form.makeBody(), form.contentType)
        case .jsonEncoded(let value, let encoder):
            return (.data(try encoder.encode(value)), "application/json")
        }
    }
}

/// `application/x-www-form-urlencoded` as the WHATWG URL standard defines it.
package enum FormEncoding {
    /// Only these bytes pass unescaped (no `~`, unlike RFC 3986's unreserved set); space becomes `+`.
    static let allowed = ASCIISet(exactly: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._")

    /// Encodes name/value pairs in order.
    package static func encode(_ items: [URLQueryItem]) -> String {
        items.map { escape($0.name) + "=" + escape($0.value ?? "") }.joined(separator: "&")
    }

    /// The shared percent-encoder, with the one difference forms have: space is `+`, not `%20`.
    static func escape(_ string: String) -> String {
        let space = UInt8(ascii: " ")
        guard string.utf8.contains(space) else { return RequestTarget.percentEncode(string, allowed: allowed) }
        // Split on the byte, not on `Character`: a space followed by a combining mark is one Character.
        return string.utf8.split(separator: space, omittingEmptySubsequences: false)
            .map { RequestTarget.percentEncode(String(Substring($0)), allowed: allowed) }
            .joined(separator: "+")
    }
}

/// An endpoint whose JSON response needs a decoder of its own (dates, key strategies) rather than the client's.
///
/// ```swift
/// struct GetEvents: JSONDecodingEndpoint {
///     typealias Response = [Event]
///     var path: String { "/events" }
///     var jsonDecoder: JSONDecoder { let d = JSONDecoder(); d.dateDecodingStrategy = .iso8601; return d }
/// }
/// ```
public protocol JSONDecodingEndpoint: Endpoint {
    /// The decoder used for this endpoint's responses.
    var jsonDecoder: JSONDecoder { get }
}

extension JSONDecodingEndpoint {
    public func decode(_ response: RawResponse, using decoder: JSONDecoder) throws -> Response {
        try jsonDecoder.decode(Response.self, from: response.body)
    }
}
