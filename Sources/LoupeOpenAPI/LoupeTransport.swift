import Foundation
import HTTPTypes
import Loupe
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends through a Loupe ``Loupe/Client``: a generated client gets
/// the Loupe client's retry, circuit breaker, token refresh, every middleware and the recorder, with each call's
/// OpenAPI `operationId` as the exchange's operation name.
///
/// ```swift
/// let loupe = Client.resilient(baseURL: api, transport: AsyncHTTPClientTransport(), observer: inspector)
/// let client = DemoAPI.Client(serverURL: api, transport: LoupeTransport(client: loupe))
/// ```
/// The request goes to the generated client's `serverURL` (the Loupe client's `baseURL` is only used by its own
/// endpoints). A request body of known length up to ``maxBufferedRequestBody`` is sent from memory, so a retry
/// can resend it and the recorder sees it; a longer one streams. Responses are collected, except those the
/// ``streamsResponse`` rule picks, which stream through ``Loupe/Client/stream(_:body:options:streaming:)``: the
/// recorder keeps their first bytes, the app reads the rest as it arrives.
public struct LoupeTransport: OpenAPIRuntime.ClientTransport {
    /// The client every call goes through.
    public let client: Loupe.Client
    /// Request bodies of known length up to this many bytes are read into memory before sending. Default 1 MiB.
    public var maxBufferedRequestBody: Int
    /// Which requests' responses stream instead of being collected. Default: those whose `Accept` names no JSON,
    /// XML or text type (`application/octet-stream`, `text/event-stream` streams; a JSON API's calls are collected,
    /// which is cheaper per call).
    public var streamsResponse: @Sendable (HTTPRequest) -> Bool
    private let baseURLs = BaseURLCache()

    public init(
        client: Loupe.Client, maxBufferedRequestBody: Int = 1 << 20,
        streamsResponse: @escaping @Sendable (HTTPRequest) -> Bool = { LoupeTransport.acceptsStreamedResponse($0) }
    ) {
        self.client = client
        self.maxBufferedRequestBody = maxBufferedRequestBody
        self.streamsResponse = streamsResponse
    }

    /// The default ``streamsResponse`` rule: true unless `Accept` names a JSON, XML or (non-event-stream) text type.
    public static func acceptsStreamedResponse(_ request: HTTPRequest) -> Bool {
        guard let accept = request.headerFields[.accept]?.lowercased() else { return false }
        if accept.contains("text/event-stream") { return true }
        return !(accept.contains("json") || accept.contains("xml") || accept.contains("text/"))
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
        HTTPResponse, HTTPBody?
    ) {
        let absolute = OpenAPIRequest.absolute(request, baseURL: baseURL, cache: baseURLs)
        let options = RequestOptions(operation: operationID)
        let (bytes, rest) = try await OpenAPIRequest.smallBody(body, cap: maxBufferedRequestBody)
        let outgoing: RequestBody?
        if let bytes {
            outgoing = .data(bytes)
        } else if let rest {
            outgoing = Self.streamed(rest)
        } else {
            outgoing = nil
        }
        if streamsResponse(absolute) {
            let response = try await client.stream(absolute, body: outgoing, options: options)
            let length = StreamedResponse.expectedBodyLength(of: response.head, answering: absolute.method)
            return (response.head, HTTPBody(response.body, length: length.map { .known($0) } ?? .unknown, iterationBehavior: .single))
        }
        let response = try await client.execute(absolute, body: outgoing, options: options)
        // Empty means no body: a generated client reads none for a 204, and finds a missing body for a
        // content it expected either way.
        return (response.head, response.body.isEmpty ? nil : HTTPBody(response.body))
    }

    /// A body of unknown or large length, streamed; replayable (a retry may resend it) when it can be iterated again.
    static func streamed(_ body: HTTPBody) -> RequestBody {
        let length: Int64? = if case .known(let length) = body.length { length } else { nil }
        return .stream(length: length, replayable: body.iterationBehavior == .multiple) {
            // Pulled chunk by chunk as the transport writes (backpressure, no task of its own).
            let reader = ChunkReader(body.makeAsyncIterator())
            return AsyncThrowingStream(unfolding: { try await reader.next() })
        }
    }
}

/// The iterator of a streamed request body, for `AsyncThrowingStream(unfolding:)`.
// @unchecked Sendable: `next()` is called only by `AsyncThrowingStream(unfolding:)`, once at a time for its single
// consumer, so the iterator is never used concurrently.
private final class ChunkReader: @unchecked Sendable {
    private var iterator: HTTPBody.AsyncIterator

    init(_ iterator: HTTPBody.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> Data? {
        try await iterator.next().map { Data($0) }
    }
}
