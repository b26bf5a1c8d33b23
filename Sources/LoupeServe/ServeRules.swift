import Foundation
import HTTPTypes
import Loupe
import LoupeRules
import LoupeTrace

/// Served answers passed through a rule book (`LOUPE_RULES`): a fault turns a served 200 into a 503 or delays it, a
/// mock replaces it, so a front end can rehearse an outage against a recording.
///
/// The rules run in `RulesTransport`, exactly as in an app: a client whose transport answers with the served answer
/// (handed down in a task-local value, since the client's chain takes only the request) is wrapped in the rules.
package struct ServeRules: Sendable {
    /// The answer the innermost transport returns for the request being served.
    @TaskLocal static var pending: ServeAnswer?

    package let book: RuleBook
    private let client: Client

    package init(book: RuleBook) {
        self.book = book
        self.client = Client(baseURL: URL(string: "http://127.0.0.1")!,
                             transport: RulesTransport(wrapping: PendingAnswerTransport(), book: book))
    }

    /// `answer` after the rules that match `request` acted on it; a fault that fails the exchange (a reset, a
    /// timeout) becomes a 502 saying so.
    package func apply(_ answer: ServeAnswer, to request: ServeRequest) async -> ServeAnswer {
        guard book.isActive else { return answer }
        var head = HTTPRequest(method: HTTPRequest.Method(request.method) ?? .get, scheme: "http", authority: "127.0.0.1",
                               path: request.pathAndQuery)
        for header in request.headers {
            guard let name = HTTPField.Name(header.name), !["host", "content-length"].contains(name.canonicalName) else { continue }
            head.headerFields.append(HTTPField(name: name, value: header.value))
        }
        do {
            let response = try await Self.$pending.withValue(answer) {
                try await client.execute(head, body: request.body.isEmpty ? nil : .data(request.body))
            }
            let headers = response.head.headerFields.map { TraceHeader(name: $0.name.rawName, value: $0.value) }
            var result = ServeAnswer(status: response.head.status.code, headers: headers, body: response.body,
                                     truncated: answer.truncated, ruleActed: response.body != answer.body || response.head.status.code != answer.status,
                                     firstByte: answer.firstByte, transfer: answer.transfer)
            // A stream is served as recorded unless a rule replaced the answer (a fault's 503 carries no stream).
            if !result.ruleActed { (result.stream, result.streamStart) = (answer.stream, answer.streamStart) }
            return result
        } catch {
            let reason = TerminalText.line(String(describing: error))
            return ServeAnswer(status: 502, headers: [TraceHeader(name: "Content-Type", value: "text/plain; charset=utf-8")],
                               body: Data("loupe serve: a rule failed this answer: \(reason)\n".utf8), ruleActed: true)
        }
    }
}

/// The innermost transport of ``ServeRules``: returns the answer being served, never touching a network.
struct PendingAnswerTransport: ClientTransport {
    func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        guard let answer = ServeRules.pending else { throw CancellationError() }
        var fields = HTTPFields()
        for header in answer.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        return RawResponse(status: HTTPResponse.Status(code: answer.status), headerFields: fields, body: answer.body)
    }
}
