import Foundation
import HTTPTypes

/// Sends endpoints through an ordered middleware chain to a transport, reporting every step to an observer.
///
/// ```swift
/// let client = Client(baseURL: URL(string: "https://api.example.com")!,
///                     transport: AsyncHTTPClientTransport(),
///                     middlewares: [LoggingMiddleware()],
///                     observer: inspector)
/// let user = try await client.send(GetUser(id: 1))
/// ```
/// Cancelling the calling task cancels the transport call. Every failure is a ``ClientError``.
public struct Client: Sendable {
    public let baseURL: URL
    public let transport: any ClientTransport
    public let middlewares: [any ClientMiddleware]
    public let observer: any ClientObserver
    public let configuration: ClientConfiguration
    let inflight = InflightRegistry()
    let target: RequestTarget?
    /// The middleware folded around the transport once, not per request (a closure per middleware each time).
    let handler: Next

    public init(
        baseURL: URL,
        transport: any ClientTransport,
        middlewares: [any ClientMiddleware] = [],
        observer: any ClientObserver = NoOpClientObserver(),
        configuration: ClientConfiguration = ClientConfiguration()
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.middlewares = middlewares
        self.observer = observer
        self.configuration = configuration
        self.target = RequestTarget(baseURL)
        self.handler = Self.chain(middlewares, transport)
    }

    /// Cancels every exchange this client (or a copy of it) has in flight; each fails with stage `.cancelled`.
    public func cancelAll() {
        inflight.cancelAll()
    }

    /// How many exchanges are in flight right now.
    public var inflightCount: Int { inflight.count }

    /// Sends the endpoint and returns its decoded response.
    public func send<E: Endpoint>(_ endpoint: E) async throws -> E.Response {
        try await response(endpoint).value
    }

    /// Sends the endpoint and returns the decoded response with its full metadata.
    public func response<E: Endpoint>(_ endpoint: E) async throws -> ClientResponse<E.Response> {
        if let metadata = endpoint.metadata, RequestMetadata.current == RequestMetadata() {
            return try await RequestMetadata.$current.withValue(metadata) { try await respond(endpoint) }
        }
        return try await respond(endpoint)
    }

    private nonisolated(nonsending) func respond<E: Endpoint>(_ endpoint: E) async throws -> ClientResponse<E.Response> {
        let operation = endpoint.operationName
        let request: HTTPRequest
        let body: RequestBody?
        do {
            (request, body) = try makeRequest(endpoint)
        } catch {
            throw ClientError(operation: operation, request: nil, stage: .encoding, underlyingError: error)
        }
        let options = RequestOptions(operation: operation, timeout: endpoint.timeout ?? configuration.timeout)
        return try await perform(request, body: body, options: options, validate: true) { raw in
            try endpoint.decode(raw, using: configuration.decoder)
        }
    }

    /// Sends a request built by hand; any status is returned (not thrown), transport failures throw.
    public func execute(_ request: HTTPRequest, body: RequestBody? = nil, options: RequestOptions = RequestOptions()) async throws -> ClientResponse<Data> {
        var options = options
        options.timeout = options.timeout ?? configuration.timeout
        return try await perform(request, body: body, options: options, validate: false) { $0.body }
    }

    func makeRequest<E: Endpoint>(_ endpoint: E) throws -> (HTTPRequest, RequestBody?) {
        guard let target else { throw URLError(.badURL) }
        var fields = configuration.defaultHeaders
        for field in endpoint.headers { fields[field.name] = field.value }
        let encoded = try endpoint.body.encoded(with: configuration.encoder)
        if let contentType = encoded?.1, fields[.contentType] == nil { fields[.contentType] = contentType }
        let request = HTTPRequest(
            method: endpoint.method, scheme: target.scheme, authority: target.authority,
            path: target.pathAndQuery(endpoint.path, query: endpoint.query), headerFields: fields)
        return (request, encoded?.0)
    }
}
