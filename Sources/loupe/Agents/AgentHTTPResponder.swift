import Foundation
import HTTPTypes
import Hummingbird
import LoupeLink
import LoupeTrace
import NIOCore
import Synchronization

/// `loupe mcp --http`: MCP's streamable HTTP transport at `/mcp`, answering each POSTed JSON-RPC message with
/// JSON (no event streams: this server never sends requests or notifications of its own, so GET is 405).
///
/// Before anything is read, a request must come to a loopback host from no other origin (`Host` and `Origin`, so a
/// web page cannot reach the server through DNS rebinding; 403) and carry the bearer secret printed at start (401).
/// `initialize` opens a session named by `Mcp-Session-Id`; every later message names it (400 without, 404 for an
/// unknown or ended one), DELETE ends it. At most ``maximumSessions`` are open at once.
final class AgentHTTPResponder: HTTPResponder, Sendable {
    typealias Context = BasicRequestContext

    static let path = "/mcp"
    static let maximumSessions = 64
    static let sessionHeader = HTTPField.Name("Mcp-Session-Id")!
    static let versionHeader = HTTPField.Name("MCP-Protocol-Version")!

    let server: AgentServer
    private let secret: [UInt8]
    private let sessions = Mutex<[String: MCPSession]>([:])
    /// Requests under way by session and id, so `notifications/cancelled` can stop one.
    private let running = Mutex<[String: Task<String, Never>]>([:])

    init(server: AgentServer, secret: String) {
        self.server = server
        self.secret = Array(secret.utf8)
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        guard Self.isLoopback(authority: request.head.authority),
              request.headers[.origin].map(Self.isLoopback(origin:)) ?? true else {
            return Self.text(.forbidden, "loupe mcp: only this machine may connect (Host and Origin must be loopback)\n")
        }
        let presented = request.headers[.authorization].map { Array($0.utf8) } ?? []
        guard LinkIdentity.sameBytes(presented, Array("Bearer ".utf8) + secret) else {
            var response = Self.text(.unauthorized, "loupe mcp: the Authorization header must be Bearer and the secret printed at start\n")
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        guard (request.head.path ?? "/").split(separator: "?", maxSplits: 1).first.map(String.init) == Self.path else {
            return Self.text(.notFound, "loupe mcp: the endpoint is \(Self.path)\n")
        }
        if let version = request.headers[Self.versionHeader], !MCPSession.versions.contains(version) {
            return Self.text(.badRequest, "loupe mcp: protocol version \(version) is not one of \(MCPSession.versions.joined(separator: ", "))\n")
        }
        let sessionID = request.headers[Self.sessionHeader]
        switch request.method {
        case .post:
            return await post(request, sessionID: sessionID)
        case .delete:
            guard let sessionID, sessions.withLock({ $0.removeValue(forKey: sessionID) }) != nil else {
                return Self.text(.notFound, "loupe mcp: no such session\n")
            }
            return Response(status: .noContent)
        default:
            var response = Self.text(.methodNotAllowed, "loupe mcp: POST JSON-RPC messages to \(Self.path)\n")
            response.headers[.allow] = "POST, DELETE"
            return response
        }
    }

    private func post(_ request: Request, sessionID: String?) async -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: AgentLimits.requestBytes)
        } catch {
            let refusal = MCPSession.error(id: .null, .invalidRequest("a request is at most \(AgentLimits.requestBytes) bytes"))
            return Self.json(.contentTooLarge, refusal)
        }
        let data = Data(body.readableBytesView)
        let action: MCPSession.Action
        let session: String
        if let sessionID {
            guard let known = sessions.withLock({ sessions -> MCPSession.Action? in
                guard var state = sessions[sessionID] else { return nil }
                defer { sessions[sessionID] = state }
                return state.receive(data)
            }) else {
                return Self.text(.notFound, "loupe mcp: no session \(sessionID); initialize again\n")
            }
            (action, session) = (known, sessionID)
        } else {
            // Only `initialize` opens a session; anything else without one is refused before it is read further.
            var state = MCPSession()
            guard case .object(let message)? = JSONParser.parse(data), message["method"] == .string("initialize") else {
                return Self.text(.badRequest, "loupe mcp: the Mcp-Session-Id header is required (initialize first)\n")
            }
            action = state.receive(data)
            guard state.version != nil else {
                if case .reply(let text) = action { return Self.json(.ok, text) }
                return Self.text(.badRequest, "loupe mcp: initialize failed\n")
            }
            session = UUID().uuidString.lowercased()
            let opened = sessions.withLock { sessions in
                guard sessions.count < Self.maximumSessions else { return false }
                sessions[session] = state
                return true
            }
            guard opened else {
                return Self.text(.serviceUnavailable, "loupe mcp: \(Self.maximumSessions) sessions are open; end one (DELETE) first\n")
            }
        }
        var response: Response
        switch action {
        case .reply(let text):
            response = Self.json(.ok, text)
        case .none:
            response = Response(status: .accepted)
        case .cancel(let id):
            running.withLock { $0[session + " " + id.compactText()] }?.cancel()
            response = Response(status: .accepted)
        case .run(let id, let asked):
            let key = session + " " + id.compactText()
            let task = Task { [server] in await server.answerLine(id: id, asked) }
            running.withLock { $0[key] = task }
            let line = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
            running.withLock { _ = $0.removeValue(forKey: key) }
            // Cancelled by the client: MCP sends no answer for it.
            response = task.isCancelled ? Response(status: .accepted) : Self.json(.ok, line)
        }
        response.headers[Self.sessionHeader] = session
        return response
    }

    /// `Host` names this machine: 127.0.0.1, localhost or [::1], with any port.
    static func isLoopback(authority: String?) -> Bool {
        guard let authority else { return false }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.prefix { $0 != "]" }.dropFirst()
        } else {
            host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        return ["127.0.0.1", "localhost", "::1"].contains(host.lowercased())
    }

    /// `Origin` is a page on this machine (a browser's page elsewhere is refused).
    static func isLoopback(origin: String) -> Bool {
        guard let schemeEnd = origin.range(of: "://") else { return false }
        let authority = origin[schemeEnd.upperBound...].prefix { $0 != "/" }
        return isLoopback(authority: String(authority))
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
