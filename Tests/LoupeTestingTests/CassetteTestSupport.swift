import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import LoupeTrace
import LoupeFormats
import Synchronization
import Testing

/// Builds cassette files with LoupeTrace's public API and sends requests through a real `Client`.
enum CassetteFixture {
    static let base = URL(string: "https://api.example.com")!
    static let recordedAt = Date(timeIntervalSince1970: 1_700_000_000)

    /// A recorded `GET`.
    static func exchange(
        _ pathAndQuery: String, status: Int = 200, body: String = "", requestHeaders: [TraceHeader] = [],
        at date: Date = recordedAt
    ) -> TraceExchange {
        exchange("GET", pathAndQuery, status: status, body: body, requestHeaders: requestHeaders, at: date)
    }

    /// A recorded interaction.
    static func exchange(
        _ method: String, _ pathAndQuery: String, status: Int = 200, body: String = "",
        requestBody: String? = nil, requestHeaders: [TraceHeader] = [], responseHeaders: [TraceHeader] = [],
        at date: Date = recordedAt
    ) -> TraceExchange {
        TraceExchange(
            id: UUID(), operation: "\(method) \(pathAndQuery)", method: method, url: base.absoluteString + pathAndQuery,
            startedAt: date, endedAt: date, outcome: status < 400 ? .success : .httpError, status: status,
            requestHeaders: requestHeaders,
            requestBody: requestBody.map { TraceBody(data: Data($0.utf8), size: $0.utf8.count, isTruncated: false) },
            responseHeaders: responseHeaders,
            responseBody: TraceBody(data: Data(body.utf8), size: body.utf8.count, isTruncated: false))
    }

    /// Writes `exchanges` as a Loupe store (or a HAR file, for a `.har` path), in order.
    static func write(_ exchanges: [TraceExchange], to path: String) throws {
        if path.hasSuffix(".har") {
            try HARExporter().data(for: exchanges).write(to: URL(fileURLWithPath: path))
        } else {
            let store = try SQLiteTraceStore(path: path, bounds: nil)
            try store.write(exchanges)
            try store.close()
        }
    }

    /// A client over `transport` with no middleware.
    static func client(_ transport: any ClientTransport) -> Client {
        Client(baseURL: base, transport: transport)
    }

    /// Sends `GET pathAndQuery` through `client`; any status is returned.
    @discardableResult
    static func send(_ client: Client, _ pathAndQuery: String, headers: HTTPFields = [:]) async throws -> ClientResponse<Data> {
        try await send(client, .get, pathAndQuery, headers: headers)
    }

    /// Sends `method pathAndQuery` through `client`; any status is returned.
    @discardableResult
    static func send(
        _ client: Client, _ method: HTTPRequest.Method, _ pathAndQuery: String, headers: HTTPFields = [:],
        body: String? = nil
    ) async throws -> ClientResponse<Data> {
        let request = HTTPRequest(method: method, url: URL(string: base.absoluteString + pathAndQuery)!, headerFields: headers)
        return try await client.execute(request, body: body.map { .string($0) })
    }

    /// The cassette error a failed send carries.
    static func cassetteError(_ body: () async throws -> Void) async -> CassetteError? {
        do {
            try await body()
            return nil
        } catch let error as ClientError {
            return error.underlyingError as? CassetteError
        } catch {
            return error as? CassetteError
        }
    }

    /// An upstream that answers from `steps` in order (the last repeating) and counts its calls.
    static func upstream(_ steps: [ScriptedTransport.Step]) -> ScriptedTransport {
        ScriptedTransport(steps)
    }

    static func text(_ response: ClientResponse<Data>) -> String {
        String(decoding: response.body, as: UTF8.self)
    }
}
