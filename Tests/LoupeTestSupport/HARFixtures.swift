import Foundation
import Loupe
import LoupeTrace
import LoupeReplay

/// Exchanges with every shape a HAR must carry, and HAR files written the way other tools write them.
enum HARFixtures {
    /// A start with sub-millisecond digits, so only `_loupe` (not `startedDateTime`) can keep it exactly.
    static let start = at(0)

    /// Times to the microsecond from seconds since 1970, as `_loupe` writes them.
    static func at(_ milliseconds: Double) -> Date {
        Date(timeIntervalSince1970: ((1_700_000_000.123_456 + milliseconds / 1000) * 1_000_000).rounded() / 1_000_000)
    }

    /// Retried GET, binary POST with a truncated response, a transport failure, a short circuit, a replay with
    /// an empty body and unicode, and an exchange observed only at its ends.
    static let exchanges: [TraceExchange] = [
        TraceExchange(
            id: UUID(uuidString: "11111111-1111-4111-8111-111111111111")!, operation: "listUsers", method: "GET",
            url: "https://api.example.com/v1/users?page=2&access_token=%5BREDACTED%5D", startedAt: at(0),
            endedAt: at(412.345_6), outcome: .success, status: 200,
            requestHeaders: [
                TraceHeader(name: "Authorization", value: RedactionPolicy.marker),
                TraceHeader(name: "Accept", value: "application/json"),
                TraceHeader(name: "Accept-Encoding", value: "gzip"),
                TraceHeader(name: "Cookie", value: RedactionPolicy.marker),
            ],
            responseHeaders: [
                TraceHeader(name: "Content-Type", value: "application/json; charset=utf-8"),
                TraceHeader(name: "Set-Cookie", value: RedactionPolicy.marker),
                TraceHeader(name: "x-request-id", value: "r-1"),
            ],
            responseBody: body(#"{"users":[{"id":1,"name":"Zoë"}]}"#),
            attempts: [
                TraceAttempt(number: 1, startedAt: at(0.5), requestSentAt: at(1.25), firstByteAt: at(100.5),
                             endedAt: at(101), status: 503, circuitState: "closed"),
                TraceAttempt(number: 2, startedAt: at(300.25), requestSentAt: at(301), firstByteAt: at(400),
                             endedAt: at(412.3), status: 200, circuitState: "closed", retryReason: "status 503",
                             retryDelay: 0.199_25, notes: ["cache": "revalidate", "circuit.key": "api.example.com"]),
            ],
            events: [
                TraceEvent(kind: "retry", at: at(101.5), message: "Retrying after 503 in 199 ms",
                           attributes: ["delay": "0.19925", "attempt": "2"]),
                TraceEvent(kind: "circuit", at: at(101.6), message: "closed → closed",
                           attributes: ["from": "closed", "to": "closed", "key": "api.example.com"]),
            ]),
        TraceExchange(
            id: UUID(uuidString: "22222222-2222-4222-8222-222222222222")!, operation: "uploadAvatar", method: "POST",
            url: "https://api.example.com/v1/avatar", startedAt: at(1000), endedAt: at(1250), outcome: .success,
            status: 201,
            requestHeaders: [TraceHeader(name: "content-type", value: "image/png"),
                             TraceHeader(name: "Content-Length", value: "6")],
            requestBody: TraceBody(data: Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF]), size: 6, isTruncated: false),
            responseHeaders: [TraceHeader(name: "Content-Type", value: "text/plain"),
                              TraceHeader(name: "Location", value: "https://cdn.example.com/a.png")],
            responseBody: TraceBody(data: Data("stored, and then some".utf8), size: 5_000_000, isTruncated: true),
            attempts: [TraceAttempt(number: 1, startedAt: at(1000), requestSentAt: at(1010), firstByteAt: at(1200),
                                    endedAt: at(1250), status: 201)]),
        TraceExchange(
            id: UUID(uuidString: "33333333-3333-4333-8333-333333333333")!, operation: "GET /health", method: "GET",
            url: "http://localhost:8080/health", startedAt: at(2000), endedAt: at(2900), outcome: .transportError,
            error: "connection refused (localhost:8080)",
            requestHeaders: [TraceHeader(name: "User-Agent", value: "Loupe")],
            attempts: (1...3).map { number in
                TraceAttempt(number: number, startedAt: at(2000 + Double(number - 1) * 300),
                             endedAt: at(2001 + Double(number - 1) * 300), error: "connection refused",
                             circuitState: number == 3 ? "half-open" : "closed",
                             retryReason: number > 1 ? "transport error" : nil, retryDelay: number > 1 ? 0.299 : nil)
            },
            events: [TraceEvent(kind: "circuit", at: at(2601), message: "closed → open",
                                attributes: ["from": "closed", "to": "open"])]),
        TraceExchange(
            id: UUID(uuidString: "44444444-4444-4444-8444-444444444444")!, operation: "getUser", method: "GET",
            url: "https://api.example.com/v1/users/42", startedAt: at(3000), endedAt: at(3000.02),
            outcome: .shortCircuited, error: "circuit open for api.example.com",
            events: [TraceEvent(kind: "circuit", at: at(3000.01), message: "short-circuited", attributes: [:])]),
        TraceExchange(
            id: UUID(uuidString: "55555555-5555-4555-8555-555555555555")!, operation: "café ☕︎ put", method: "PUT",
            url: "https://api.example.com/v1/notes/%C3%A9t%C3%A9", startedAt: at(4000), endedAt: at(4040),
            outcome: .success, status: 204,
            requestHeaders: [TraceHeader(name: "X-Note", value: "naïve 'quoted' \"double\" $HOME `date`"),
                             TraceHeader(name: "X-Empty", value: "")],
            requestBody: TraceBody(data: Data(), size: 0, isTruncated: false),
            responseHeaders: [TraceHeader(name: "Date", value: "Tue, 14 Nov 2023 22:13:24 GMT")],
            attempts: [TraceAttempt(number: 1, startedAt: at(4000), requestSentAt: at(4001), endedAt: at(4040),
                                    status: 204)],
            replayOf: UUID(uuidString: "11111111-1111-4111-8111-111111111111")!),
        TraceExchange(
            id: UUID(uuidString: "66666666-6666-4666-8666-666666666666")!, operation: "DELETE /v1/session",
            method: "DELETE", url: "https://api.example.com/v1/session", startedAt: at(5000), endedAt: at(5090),
            outcome: .httpError, status: 401, error: "HTTP 401",
            requestBody: body("line one\nline two\twith tab and emoji 👩‍💻"),
            responseHeaders: [TraceHeader(name: "WWW-Authenticate", value: "Bearer")],
            responseBody: body(""),
            attempts: [TraceAttempt(number: 1, startedAt: at(5000), endedAt: at(5090), status: 401)]),
    ]

    static func body(_ text: String) -> TraceBody {
        TraceBody(data: Data(text.utf8), size: text.utf8.count, isTruncated: false)
    }

    /// A HAR as Chrome DevTools writes one ("Save all as HAR with content"): pages, cookies, `_` fields of its
    /// own, base64 image content, `-1` timings, zone offsets, a failed request with `_error`, a form post, and a
    /// planted secret in headers.
    static let chromeHAR = #"""
    {
      "log": {
        "version": "1.2",
        "creator": { "name": "WebInspector", "version": "537.36" },
        "pages": [
          {
            "startedDateTime": "2024-03-10T12:00:00.000+02:00",
            "id": "page_1",
            "title": "https://shop.example.com/",
            "pageTimings": { "onContentLoad": 512.2, "onLoad": 1033.9 }
          }
        ],
        "entries": [
          {
            "_initiator": { "type": "other" },
            "_priority": "VeryHigh",
            "_resourceType": "document",
            "cache": {},
            "connection": "443",
            "pageref": "page_1",
            "request": {
              "method": "GET",
              "url": "https://shop.example.com/?ref=home",
              "httpVersion": "http/2.0",
              "headers": [
                { "name": ":authority", "value": "shop.example.com" },
                { "name": "accept", "value": "text/html" },
                { "name": "authorization", "value": "Bearer PLANTED" },
                { "name": "cookie", "value": "session=PLANTED-COOKIE" }
              ],
              "queryString": [ { "name": "ref", "value": "home" } ],
              "cookies": [ { "name": "session", "value": "PLANTED-COOKIE", "path": "/", "domain": "shop.example.com", "expires": "2025-01-01T00:00:00.000Z", "httpOnly": true, "secure": true } ],
              "headersSize": -1,
              "bodySize": 0
            },
            "response": {
              "status": 200,
              "statusText": "",
              "httpVersion": "http/2.0",
              "headers": [
                { "name": "content-type", "value": "text/html; charset=utf-8" },
                { "name": "set-cookie", "value": "session=PLANTED-SET-COOKIE; Path=/; HttpOnly" }
              ],
              "cookies": [],
              "content": { "size": 30, "mimeType": "text/html", "compression": 0, "text": "<html><body>Shop</body></html>" },
              "redirectURL": "",
              "headersSize": -1,
              "bodySize": -1,
              "_transferSize": 1234,
              "_error": null
            },
            "serverIPAddress": "[2001:db8::1]",
            "startedDateTime": "2024-03-10T12:00:00.015+02:00",
            "time": 120.5,
            "timings": { "blocked": 2.1, "dns": -1, "ssl": -1, "connect": -1, "send": 0.4, "wait": 100.0, "receive": 18.0, "_blocked_queueing": 1.2 },
            "comment": "the page"
          },
          {
            "_resourceType": "image",
            "cache": {},
            "pageref": "page_1",
            "request": {
              "method": "GET",
              "url": "https://cdn.example.com/logo.png",
              "httpVersion": "http/2.0",
              "headers": [ { "name": "accept", "value": "image/avif,image/webp,*/*" } ],
              "queryString": [],
              "cookies": [],
              "headersSize": -1,
              "bodySize": 0
            },
            "response": {
              "status": 200,
              "statusText": "OK",
              "httpVersion": "http/2.0",
              "headers": [ { "name": "Content-Type", "value": "image/png" } ],
              "cookies": [],
              "content": { "size": 8, "mimeType": "image/png", "text": "iVBORw0KGgo=", "encoding": "base64" },
              "redirectURL": "",
              "headersSize": -1,
              "bodySize": 8
            },
            "startedDateTime": "2024-03-10T10:00:00.200Z",
            "time": -1,
            "timings": { "blocked": -1, "dns": -1, "connect": -1, "send": -1, "wait": -1, "receive": -1 }
          },
          {
            "cache": {},
            "request": {
              "method": "POST",
              "url": "https://shop.example.com/api/cart",
              "httpVersion": "http/2.0",
              "headers": [ { "name": "Content-Type", "value": "application/x-www-form-urlencoded" } ],
              "queryString": [],
              "cookies": [],
              "headersSize": -1,
              "bodySize": 17,
              "postData": {
                "mimeType": "application/x-www-form-urlencoded",
                "params": [ { "name": "item", "value": "42" }, { "name": "qty", "value": "2 pcs" } ]
              }
            },
            "response": {
              "status": 0,
              "statusText": "",
              "httpVersion": "",
              "headers": [],
              "cookies": [],
              "content": { "size": 0, "mimeType": "x-unknown" },
              "redirectURL": "",
              "headersSize": -1,
              "bodySize": -1,
              "_transferSize": 0,
              "_error": "net::ERR_CONNECTION_RESET"
            },
            "startedDateTime": "2024-03-10T10:00:01Z",
            "time": 35.25,
            "timings": { "blocked": 1.25, "dns": 3, "connect": 11, "ssl": 6, "send": 0, "wait": 20, "receive": -1 }
          }
        ]
      }
    }
    """#

    /// Firefox and mitmproxy shapes: no `text` for an image, microsecond times, lower-case zone, missing fields.
    static let otherToolsHAR = #"""
    {"log": {"version": "1.1", "creator": {"name": "mitmproxy", "version": "10.2.2"},
     "entries": [
      {"startedDateTime": "2024-03-10T13:00:00.123456+01:00", "time": 10,
       "request": {"method": "GET", "url": "http://127.0.0.1:8081/img", "headers": []},
       "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "image/jpeg"}],
                    "content": {"size": 2048, "mimeType": "image/jpeg"}},
       "timings": {"send": 1, "wait": 8, "receive": 1}},
      {"startedDateTime": "2024-03-10 12:00:01", "time": null,
       "request": {"method": "PATCH", "url": "http://127.0.0.1:8081/thing", "httpVersion": "HTTP/1.1",
                   "headers": [{"name": "X-Count", "value": 3}],
                   "postData": {"mimeType": "application/json", "text": "{\"a\":1}"}},
       "response": {"status": "404", "statusText": "Not Found", "headers": [],
                    "content": {"size": 9, "mimeType": "text/plain", "text": "not found"}}}
     ]}}
    """#

    /// Where two values first differ (by their mirrors), for short failure messages; `nil` when they are equal.
    static func difference(_ lhs: Any, _ rhs: Any, path: String = "") -> String? {
        if let left = lhs as? AnyHashable, let right = rhs as? AnyHashable, left == right { return nil }
        let left = String(describing: lhs)
        let right = String(describing: rhs)
        guard left != right else { return nil }
        let leftChildren = Array(Mirror(reflecting: lhs).children)
        let rightChildren = Array(Mirror(reflecting: rhs).children)
        if leftChildren.count != rightChildren.count {
            return "\(path): \(leftChildren.count) ≠ \(rightChildren.count) children"
        }
        if !leftChildren.isEmpty {
            for (index, (l, r)) in zip(leftChildren, rightChildren).enumerated() {
                if let found = difference(l.value, r.value, path: path + "." + (l.label ?? String(index))) {
                    return found
                }
            }
        }
        return "\(path): \(left.prefix(200)) ≠ \(right.prefix(200))"
    }
}

/// A double or an int as `JSONEncoder` writes it: the reference the hand-written number writers are checked against.
enum JSONNumber: Encodable {
    case double(Double), int(Int)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .double(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        }
    }
}
