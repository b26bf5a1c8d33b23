import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import Synchronization

/// What ``CassetteTransport`` asks of its cassette: the stored form of a request, what answers it, and recording.
extension Cassette {
    /// What the transport does with a request.
    enum Plan {
        /// The interaction at this index (0-based, recorded order).
        case play(Int, TraceExchange)
        case record
        case fail(CassetteError)
    }

    /// The live request in stored form: placeholders for secrets, then redaction, as it would be saved.
    func storedRequest(_ request: HTTPRequest, body: Data?, operation: String) -> CassetteRequest {
        let exchange = TraceExchange(
            id: UUID(), operation: operation, method: request.method.rawValue, url: Self.url(of: request),
            startedAt: now(), outcome: .success, requestHeaders: Self.headers(request.headerFields),
            requestBody: body.map { TraceBody(data: $0, size: $0.count, isTruncated: false) })
        return CassetteRequest(redactor.stored(exchange))
    }

    /// Plays a matching interaction, or says to record the request, or fails with the explanation.
    func plan(for request: CassetteRequest) -> Plan {
        if mode == .all { return .record }
        let records = mode == .newEpisodes
        // Recording modes never repeat: a retried request must reach the server, so that a recorded 429 is followed
        // by what the server answered next, not by itself.
        let decision = playlist.withLock { $0.take(request, matchers: matchers, allowRepeats: allowPlaybackRepeats && !records) }
        switch decision {
        case .play(let index, let exchange):
            if let stream = exchange.stream, let refusal = Self.unplayable(stream, number: index + 1, path: path) {
                return .fail(CassetteError(.unreadable, path: path, message: refusal))
            }
            guard exchange.stream == nil, let body = exchange.responseBody, body.isTruncated else { return .play(index, exchange) }
            return .fail(CassetteError(.unreadable, path: path, message: """
                interaction #\(index + 1) of \(path) holds only the first \(body.data.count) of \(body.size) bytes of its \
                response body; it cannot be replayed faithfully
                """))
        case .miss where records: return .record
        case .miss(let miss): return .fail(CassetteError(.noMatch, path: path, message: miss.message))
        }
    }

    /// Why a recorded stream cannot be played as it happened: messages dropped past the recorder's cap (a flight
    /// recorder's export keeps the first and last of a long stream), or a payload kept only in part.
    static func unplayable(_ stream: TraceStream, number: Int, path: String) -> String? {
        let what = stream.kind == .webSocket ? "a WebSocket" : "a server-sent event stream"
        if stream.omittedCount > 0 || stream.messages.count < stream.messageCount {
            return """
                interaction #\(number) of \(path) is \(what) whose recording kept \(stream.messages.count) of its \
                \(stream.messageCount) messages (\(stream.omittedCount) dropped in the middle past the recorder's cap); \
                it cannot be played faithfully: record it again with the cassette
                """
        }
        if let cut = stream.messages.first(where: \.isTruncated) {
            return """
                interaction #\(number) of \(path) is \(what) whose message #\(cut.index) was recorded only in part \
                (\(cut.payload.count) of \(cut.size) bytes); it cannot be played faithfully: record it again with the cassette
                """
        }
        return nil
    }

    /// Stores a new interaction (redacted) and saves the whole cassette.
    func record(_ exchange: TraceExchange) throws(CassetteError) {
        let stored = redactor.stored(exchange)
        try playlist.withLock { list throws(CassetteError) in
            list.append(stored)
            // Saved under the lock so that concurrent recordings never write an older list over a newer one.
            try CassetteFile.save(list.interactions, to: path)
        }
    }

    /// A response as played: the recorded status, headers and body, with secrets put back.
    func response(for exchange: TraceExchange) -> RawResponse {
        var fields = HTTPFields()
        for header in exchange.responseHeaders {
            guard let name = HTTPField.Name(header.name) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        let status = HTTPResponse.Status(code: exchange.status ?? 0)
        return redactor.secrets.restore(RawResponse(status: status, headerFields: fields, body: exchange.responseBody?.data ?? Data()))
    }

    static func url(of request: HTTPRequest) -> String {
        "\(request.scheme ?? "http")://\(request.authority ?? "")\(request.path ?? "/")"
    }

    static func headers(_ fields: HTTPFields) -> [TraceHeader] {
        fields.map { TraceHeader(name: $0.name.rawName, value: $0.value) }
    }
}
