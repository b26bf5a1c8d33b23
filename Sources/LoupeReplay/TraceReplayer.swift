import Foundation
import HTTPTypes
import Loupe
import LoupeTrace

/// Sends a recorded exchange again through a client, marked as a replay of the original.
///
/// Redacted header values (`[REDACTED]`) are never sent: the secret is gone, and sending the marker would only
/// earn a confusing 401. Supply fresh credentials with a middleware on the replaying client instead. A query item
/// whose value was redacted (`?api_key=%5BREDACTED%5D`) is left out too, unless ``queryValues`` gives it a value
/// (issue 43.6).
public struct TraceReplayer: Sendable {
    /// Why a recorded exchange cannot be replayed.
    public struct ReplayError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public let client: Client
    /// Opens the replays of recorded WebSockets; without one they cannot be replayed.
    public var webSocketTransport: (any WebSocketTransport)?
    /// How a stream's recorded client messages are paced.
    public var pacing: StreamPacing
    /// Values for query items whose recorded value was redacted, by the item's name as recorded.
    public var queryValues: [String: String]

    public init(client: Client, webSocketTransport: (any WebSocketTransport)? = nil, pacing: StreamPacing = .recorded,
                queryValues: [String: String] = [:]) {
        self.client = client
        self.webSocketTransport = webSocketTransport
        self.pacing = pacing
        self.queryValues = queryValues
    }

    /// The names of `url`'s query items whose value is the redaction marker, each once, in order.
    public static func redactedQueryNames(in url: String) -> [String] {
        guard let query = URLComponents(string: url)?.percentEncodedQuery else { return [] }
        var names: [String] = []
        for item in query.split(separator: "&", omittingEmptySubsequences: false) {
            if let (name, value) = decodedItem(item), value == RedactionPolicy.marker, !names.contains(name) {
                names.append(name)
            }
        }
        return names
    }

    /// The query with each redacted item given its value from `values` or left out; every other item keeps its
    /// bytes as recorded. `nil` when no item is left.
    static func fillingRedacted(query: String, values: [String: String]) -> String? {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#;")
        let items = query.split(separator: "&", omittingEmptySubsequences: false).compactMap { item -> Substring? in
            guard let (name, value) = decodedItem(item), value == RedactionPolicy.marker else { return item }
            guard let replacement = values[name],
                  let encoded = replacement.addingPercentEncoding(withAllowedCharacters: allowed) else { return nil }
            return Substring(String(item.prefix { $0 != "=" }) + "=" + encoded)
        }
        return items.isEmpty ? nil : items.joined(separator: "&")
    }

    /// A form-encoded `name=value` item, both decoded (`+` as a space).
    private static func decodedItem(_ item: Substring) -> (name: String, value: String)? {
        guard let equals = item.firstIndex(of: "=") else { return nil }
        func decode(_ text: Substring) -> String? {
            text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        guard let name = decode(item[..<equals]), let value = decode(item[item.index(after: equals)...]) else { return nil }
        return (name, value)
    }

    /// The request the recording describes, with redacted headers removed.
    ///
    /// - Parameters:
    ///   - baseURL: Sends to this scheme, host and port instead (the recorded path and query are kept).
    ///   - headers: Fields that replace every recorded field of the same name, or are added.
    ///   - queryValues: Values for query items whose recorded value was redacted; the others are left out.
    public static func request(for exchange: TraceExchange, baseURL: URL? = nil, headers overrides: HTTPFields = [:],
                               queryValues: [String: String] = [:]) throws -> (HTTPRequest, RequestBody?) {
        guard var components = URLComponents(string: exchange.url), components.host != nil else {
            throw ReplayError(description: "recorded URL is not absolute: \(exchange.url)")
        }
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = fillingRedacted(query: query, values: queryValues)
        }
        if let base = baseURL.flatMap({ URLComponents(url: $0, resolvingAgainstBaseURL: false) }) {
            components.scheme = base.scheme
            components.host = base.host
            components.port = base.port
        }
        guard let url = components.url else { throw ReplayError(description: "cannot rebuild URL \(exchange.url)") }
        if let body = exchange.requestBody, body.isTruncated {
            throw ReplayError(description: "the recorded request body was truncated (\(body.size) bytes); it cannot be replayed faithfully")
        }
        var fields = HTTPFields()
        for header in exchange.requestHeaders where header.value != RedactionPolicy.marker {
            guard let name = HTTPField.Name(header.name) else { continue }
            // The transport sets these for the body it actually sends.
            if name == .contentLength || name == .transferEncoding || name.canonicalName == "host" { continue }
            if overrides[name] != nil { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        fields.append(contentsOf: overrides)
        Self.renewTraceContext(in: &fields, overrides: overrides)
        let method = HTTPRequest.Method(exchange.method) ?? .get
        return (HTTPRequest(method: method, url: url, headerFields: fields), exchange.requestBody.map { .data($0.data) })
    }

    /// A replay is a new request, so it does not reuse the recorded W3C trace context: the recorded `traceparent`
    /// is replaced by one with a new trace id and a new span id, and the recorded `tracestate` (vendor state of
    /// the original trace) is dropped. A new trace rather than the original's: a replay sent days
    /// later inside the original trace would stretch it across days and hang a span under a parent that ended
    /// long before; the link to the original is the replay-of id (`loupe.replay_of` on exported spans). A
    /// context given as a header override (`-H traceparent:…`) is the caller's choice and is sent as given.
    static func renewTraceContext(in fields: inout HTTPFields, overrides: HTTPFields) {
        let traceparent = TraceContextPropagation.traceparent, tracestate = TraceContextPropagation.tracestate
        if overrides[tracestate] == nil { fields[tracestate] = nil }
        guard overrides[traceparent] == nil, fields[traceparent] != nil else { return }
        // The sampled flag is kept: whoever sampled the original wants to see its replay too.
        let sampled = fields[traceparent].flatMap(TraceContext.init(traceparent:))?.sampled ?? true
        var renewed = TraceContextPropagation.fallbackTraceparent(exchangeID: UUID(), attempt: 0)
        if !sampled { renewed = String(renewed.dropLast(2)) + "00" }
        fields[traceparent] = renewed
    }

    /// Sends the exchange again; the new exchange is recorded with `replayOf` set to the original's id.
    ///
    /// `baseURL` and `headers` change the request as in ``request(for:baseURL:headers:)``; `timeout` bounds each
    /// attempt.
    /// Sends `exchange` again, whatever it carried: a recorded WebSocket is opened again and its client messages
    /// sent (``StreamPacing``); a server-sent event stream is read again as a stream, reconnecting as the server
    /// says, to its end; anything else as ``replay(_:baseURL:headers:timeout:)``. Returns the new exchange's
    /// id and its status (a WebSocket's handshake status, 101).
    public func replayAny(_ exchange: TraceExchange, baseURL: URL? = nil, headers: HTTPFields = [:],
                          timeout: Duration? = nil) async throws -> (exchangeID: UUID?, status: Int) {
        if exchange.stream?.kind == .eventStream {
            let (request, body) = try Self.request(for: exchange, baseURL: baseURL, headers: headers, queryValues: queryValues)
            return try await EventStreamReplay(client: client).replay(exchange, request: request, body: body, timeout: timeout)
        }
        guard exchange.stream?.kind == .webSocket else {
            let response = try await replay(exchange, baseURL: baseURL, headers: headers, timeout: timeout)
            return (response.exchangeID, Int(response.status.code))
        }
        guard let webSocketTransport else {
            throw ReplayError(description: "replaying a WebSocket needs a WebSocket transport (LoupeWebSocket's NIOWebSocketTransport)")
        }
        let (request, _) = try Self.request(for: exchange, baseURL: baseURL, headers: headers, queryValues: queryValues)
        let replay = WebSocketReplay(client: client, transport: webSocketTransport, pacing: pacing)
        return try await replay.replay(exchange, request: request, timeout: timeout)
    }

    public func replay(_ exchange: TraceExchange, baseURL: URL? = nil, headers: HTTPFields = [:],
                       timeout: Duration? = nil) async throws -> ClientResponse<Data> {
        let (request, body) = try Self.request(for: exchange, baseURL: baseURL, headers: headers, queryValues: queryValues)
        return try await client.execute(
            request, body: body, options: RequestOptions(operation: exchange.operation, timeout: timeout, replayOf: exchange.id))
    }
}
