import Foundation
import HTTPTypes

extension Client {
    /// Sends the endpoint with per-call ``RequestMetadata`` (priority, cache policy).
    public func send<E: Endpoint>(_ endpoint: E, metadata: RequestMetadata) async throws -> E.Response {
        try await RequestMetadata.$current.withValue(metadata) { try await send(endpoint) }
    }

    /// Sends the endpoint with per-call ``RequestMetadata`` and returns the response with its metadata.
    public func response<E: Endpoint>(_ endpoint: E, metadata: RequestMetadata) async throws -> ClientResponse<E.Response> {
        try await RequestMetadata.$current.withValue(metadata) { try await response(endpoint) }
    }

    /// Sends a request built by hand with per-call ``RequestMetadata``.
    public func execute(
        _ request: HTTPRequest, body: RequestBody? = nil, options: RequestOptions = RequestOptions(), metadata: RequestMetadata
    ) async throws -> ClientResponse<Data> {
        try await RequestMetadata.$current.withValue(metadata) { try await execute(request, body: body, options: options) }
    }
}
