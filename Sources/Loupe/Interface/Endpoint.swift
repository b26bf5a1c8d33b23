import Foundation
import HTTPTypes

/// One operation of an API, with the type its response decodes to.
///
/// ```swift
/// struct GetUser: Endpoint {
///     typealias Response = User
///     let id: Int
///     var path: String { "/users/\(id)" }
/// }
/// let user = try await client.send(GetUser(id: 1))
/// ```
/// Everything but `path` has a default: `GET`, no query, no extra headers, no body, the client's timeout, JSON
/// decoding, and an operation name built from the method and path.
public protocol Endpoint: Sendable {
    /// What a successful response decodes to (`Data`, `String` and ``Empty`` are decoded without JSON).
    associatedtype Response: Decodable & Sendable

    /// The path, appended to the client's base URL.
    var path: String { get }
    /// The HTTP method.
    var method: HTTPRequest.Method { get }
    /// Query items, percent-encoded when the URL is built.
    var query: [URLQueryItem] { get }
    /// Header fields added to the client's defaults (an endpoint's value wins).
    var headers: HTTPFields { get }
    /// The request body.
    var body: EndpointBody { get }
    /// How long one attempt may take; `nil` uses the transport's default.
    var timeout: Duration? { get }
    /// A stable name for dashboards, filters and the recorder.
    var operationName: String { get }
    /// This endpoint's priority and cache policy; `nil` (the default) leaves both to the caller and the client.
    /// Metadata the caller binds (``Client/send(_:metadata:)``) wins over the endpoint's.
    var metadata: RequestMetadata? { get }
    /// Turns an accepted response into `Response`.
    func decode(_ response: RawResponse, using decoder: JSONDecoder) throws -> Response
}

extension Endpoint {
    public var method: HTTPRequest.Method { .get }
    public var query: [URLQueryItem] { [] }
    public var headers: HTTPFields { [:] }
    public var body: EndpointBody { .none }
    public var timeout: Duration? { nil }
    public var metadata: RequestMetadata? { nil }
    public var operationName: String { "\(method.rawValue) \(path)" }

    public func decode(_ response: RawResponse, using decoder: JSONDecoder) throws -> Response {
        try decoder.decode(Response.self, from: response.body)
    }
}

extension Endpoint where Response == Data {
    public func decode(_ response: RawResponse, using decoder: JSONDecoder) throws -> Data { response.body }
}

extension Endpoint where Response == String {
    public func decode(_ response: RawResponse, using decoder: JSONDecoder) throws -> String {
        guard let text = String(data: response.body, encoding: .utf8) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The body is not valid UTF-8"))
        }
        return text
    }
}

extension Endpoint where Response == Empty {
    public func decode(_ response: RawResponse, using decoder: JSONDecoder) throws -> Empty { Empty() }
}

/// A response whose body is ignored.
public struct Empty: Decodable, Sendable, Hashable {
    public init() {}
}
