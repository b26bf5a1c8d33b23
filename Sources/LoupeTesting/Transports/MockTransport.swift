import Foundation
import HTTPTypes
import Loupe

/// A transport that answers every request with a closure: the most flexible in-process double.
public struct MockTransport: ClientTransport {
    /// Answers one request: return a response, or throw to fail the attempt.
    public typealias Handler = @Sendable (HTTPRequest, RequestBody?, RequestContext) async throws -> RawResponse

    private let handler: Handler

    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    public nonisolated(nonsending) func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        try await handler(request, body, context)
    }
}

/// A transport that answers every request with the same response.
public struct CannedTransport: ClientTransport {
    public let response: RawResponse

    public init(_ response: RawResponse) {
        self.response = response
    }

    /// Answers with `status` and a JSON body made from `json` text.
    public init(status: HTTPResponse.Status = .ok, json: String) {
        self.init(RawResponse(status: status, headerFields: [.contentType: "application/json"], body: Data(json.utf8)))
    }

    public nonisolated(nonsending) func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        context.attempt?.markRequestSent()
        context.attempt?.markFirstByte()
        return response
    }
}
