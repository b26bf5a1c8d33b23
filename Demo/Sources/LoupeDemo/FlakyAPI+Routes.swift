import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

extension FlakyAPI {
    /// Counts requests to the flaky route so failures come in deterministic bursts.
    private static let flakyCounter = Atomic<Int>(0)

    /// When `/inventory` is down: from 1.5 s to 4.5 s after the server starts, then again every 20 s. Counted from
    /// the start rather than the wall clock, so a demo shows a breaker open, probe and recover within 10 s, every
    /// time (the breaker waits 3 s before probing).
    static func inventoryIsDown(secondsSinceStart seconds: Double) -> Bool {
        let phase = seconds.truncatingRemainder(dividingBy: 20)
        return phase >= 1.5 && phase < 4.5
    }

    static func makeRouter(accessLog: AccessLog? = nil) -> Router<BasicRequestContext> {
        let router = Router()
        // Before the routes: Hummingbird applies a middleware to the routes added after it.
        if let accessLog { router.add(middleware: accessLog) }
        let started = ContinuousClock.now
        router.get("/health") { _, _ in json(#"{"status":"ok"}"#) }
        router.get("/users") { _, _ in json(usersJSON) }
        router.get("/users/{id}") { _, context in
            guard let id = context.parameters.get("id", as: Int.self), (1...users.count).contains(id) else {
                return json(#"{"error":"no such user"}"#, status: .notFound)
            }
            return json(userJSON(id))
        }
        // Fails 4 requests in every 12: 5xx bursts that a retry policy can ride out.
        router.get("/flaky") { _, _ in
            let n = flakyCounter.wrappingAdd(1, ordering: .relaxed).oldValue
            if (n / 4) % 3 == 1 {
                let status: HTTPResponse.Status = n % 2 == 0 ? .serviceUnavailable : .badGateway
                var response = json(#"{"error":"upstream unavailable"}"#, status: status)
                response.headers[.retryAfter] = "1"
                return response
            }
            return json(#"{"ok":true,"n":\#(n)}"#)
        }
        // A dependency that goes down for 3 s: long enough for a circuit breaker to open, probe and close.
        router.get("/inventory") { _, _ in
            let elapsed = ContinuousClock.now - started
            if inventoryIsDown(secondsSinceStart: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) {
                return json(#"{"error":"inventory service down"}"#, status: .serviceUnavailable)
            }
            return json(#"{"items":[{"sku":"LP-1","stock":12},{"sku":"LP-2","stock":0}]}"#)
        }
        // Always overloaded, and says so without a Retry-After: what the demo's bursts hit, so that their retries
        // run into the client's retry budget.
        router.get("/burst") { _, _ in
            json(#"{"error":"overloaded"}"#, status: .serviceUnavailable)
        }
        // Up to a minute: long enough that a test of cancellation can tell a cancelled wait from an answered one
        // on a loaded machine; a cancelled request ends the handler's task with the connection.
        router.get("/slow") { request, _ in
            let ms = min(max(request.uri.queryParameters.get("ms", as: Int.self) ?? 800, 0), 60_000)
            try await Task.sleep(for: .milliseconds(ms))
            return json(#"{"waited_ms":\#(ms)}"#)
        }
        router.get("/secure/profile") { request, _ in
            guard request.headers[.authorization] == "Bearer \(demoToken)" else {
                var response = json(#"{"error":"unauthorized"}"#, status: .unauthorized)
                response.headers[.wwwAuthenticate] = #"Bearer realm="loupe-demo""#
                return response
            }
            return json(#"{"name":"Ada Lovelace","plan":"pro"}"#)
        }
        // Basic auth, the case that makes libcurl-backed URLSession wait forever without a challenge handler.
        router.get("/basic") { request, _ in
            guard request.headers[.authorization] == "Basic " + Data("demo:secret".utf8).base64EncodedString() else {
                var response = json(#"{"error":"unauthorized"}"#, status: .unauthorized)
                response.headers[.wwwAuthenticate] = #"Basic realm="loupe-demo""#
                return response
            }
            return json(#"{"user":"demo"}"#)
        }
        router.get("/status/{code}") { _, context in
            let code = context.parameters.get("code", as: Int.self) ?? 200
            return json(#"{"status":\#(code)}"#, status: .init(code: min(max(code, 200), 599)))
        }
        router.post("/orders") { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            let echoed = String(buffer: body)
            let item = echoed.isEmpty ? "null" : echoed
            return json(#"{"id":\#(Int.random(in: 1000...9999)),"received":\#(item)}"#, status: .created)
        }
        // Declares 1,000 bytes, sends 100 and drops the connection: a server that dies mid-body.
        router.get("/cut") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain", .contentLength: "1000"],
                     body: ResponseBody { writer in
                         try await writer.write(ByteBuffer(string: String(repeating: "a", count: 100)))
                         throw StreamCut()
                     })
        }
        router.get("/binary") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                     body: .init(byteBuffer: ByteBuffer(bytes: (0..<64).map { UInt8($0 * 7 % 256) })))
        }
        addCompletions(to: router)
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            router.on("/echo", method: method) { request, _ in try await echo(request) }
        }
        return router
    }

    /// `/echo`: the request as JSON (`method`, `url` as sent, decoded `query` items, `headers` as name/value
    /// pairs, the body as `body` text when UTF-8 and always as `bodyBase64`, a Basic header's decoded
    /// `basicCredentials`), and each request header again as an `X-Echo-<name>` response header. A server that
    /// reflects everything, so tests can check that no secret survives anywhere in a recording.
    static func echo(_ request: Request) async throws -> Response {
        let body = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
        var object: [String: Any] = [
            "method": request.method.rawValue,
            "url": request.uri.string,
            "query": Dictionary(
                (URLComponents(string: request.uri.string)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                uniquingKeysWith: { first, _ in first }),
            "headers": request.headers.map { [$0.name.rawName, $0.value] },
            "bodyBase64": body.base64EncodedString(),
        ]
        if let text = String(data: body, encoding: .utf8) { object["body"] = text }
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Basic "),
           let decoded = Data(base64Encoded: String(authorization.dropFirst(6))) {
            object["basicCredentials"] = String(decoding: decoded, as: UTF8.self)
        }
        let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        var headers: HTTPFields = [.contentType: "application/json"]
        for field in request.headers {
            if let name = HTTPField.Name("X-Echo-" + field.name.rawName) { headers.append(HTTPField(name: name, value: field.value)) }
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json)))
    }

    static let users = ["Ada", "Grace", "Linus", "Barbara", "Ken", "Margaret", "Edsger", "Zoë 🚀", "東京"]

    static var usersJSON: String {
        "[" + (1...users.count).map(userJSON).joined(separator: ",") + "]"
    }

    static func userJSON(_ id: Int) -> String {
        #"{"id":\#(id),"name":"\#(users[id - 1])","active":\#(id % 3 != 0)}"#
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
