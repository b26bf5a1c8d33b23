import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import Synchronization

/// What ``CassetteTransport`` asks of its cassette: the stored form of a request, what answers it, and recording.
extension Cassette {
    /// What the transport does with a request.
    enum Plan {
        case play(TraceExchange)
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
            guard let body = exchange.responseBody, body.isTruncated else { return .play(exchange) }
            return .fail(CassetteError(.unreadable, path: path, message: """
                interaction #\(index + 1) of \(path) holds only the first \(body.data.count) of \(body.size) bytes of its \
                response body; it cannot be replayed faithfully
                """))
        case .miss where records: return .record
        case .miss(let miss): return .fail(CassetteError(.noMatch, path: path, message: miss.message))
        }
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
