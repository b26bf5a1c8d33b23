import Foundation
import GRDB
import Loupe
@testable import LoupeTrace

extension Fixture {
    /// An exchange with every field set, using times that are exact in binary so they round-trip unchanged.
    static func fullExchange(id: UUID = UUID()) -> TraceExchange {
        let t = Fixture.start
        return TraceExchange(
            id: id, operation: "createUser", method: "POST", url: "https://api.example.test/v1/users?page=2",
            startedAt: t, endedAt: t.addingTimeInterval(1.5), outcome: .httpError, status: 502, error: "upstream failed",
            requestHeaders: [TraceHeader(name: "Content-Type", value: "application/json"),
                             TraceHeader(name: "X-Dup", value: "1"), TraceHeader(name: "X-Dup", value: "2")],
            requestBody: TraceBody(data: Data(#"{"name":"ada"}"#.utf8), size: 14, isTruncated: false),
            responseHeaders: [TraceHeader(name: "Retry-After", value: "3")],
            responseBody: TraceBody(data: Data([0x00, 0xFF, 0x10]), size: 4096, isTruncated: true),
            attempts: [
                TraceAttempt(number: 1, startedAt: t, requestSentAt: t.addingTimeInterval(0.125),
                             firstByteAt: t.addingTimeInterval(0.25), endedAt: t.addingTimeInterval(0.5), status: 503,
                             circuitState: "closed"),
                TraceAttempt(number: 2, startedAt: t.addingTimeInterval(0.75), endedAt: t.addingTimeInterval(1.5),
                             status: 502, error: "bad gateway", circuitState: "half-open", retryReason: "503",
                             retryDelay: 0.25),
            ],
            events: [
                TraceEvent(kind: "retry", at: t.addingTimeInterval(0.5), message: "retrying",
                           attributes: ["delay": "0.25", "reason": "503"]),
                TraceEvent(kind: "circuit", at: t.addingTimeInterval(0.625), message: "closed → half-open"),
            ],
            replayOf: UUID())
    }

    static func simple(_ n: Int, id: UUID = UUID()) -> TraceExchange {
        TraceExchange(id: id, operation: "op\(n)", method: "GET", url: "https://api.example.test/\(n)",
                      startedAt: Fixture.start, outcome: .success, status: 200)
    }

    /// A store as schema v1 wrote it: one retried exchange with an attempt and a breaker event.
    static func makeV1Store(at path: String) throws {
        let pool = try DatabasePool(path: path)
        try SQLiteSchema.migrator.migrate(pool, upTo: "v1")
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO exchange (id, started_at, ended_at, duration, operation, method, url, host, path, status,
                    outcome, attempt_count, request_headers, response_headers, response_body, response_body_size,
                    response_body_truncated)
                VALUES ('0F000000-0000-4000-8000-000000000001', 1000, 1001.5, 1.5, 'listUsers', 'GET',
                    'https://api.example.test/users', 'api.example.test', '/users', 503, 'httpError', 1,
                    '[]', '[{"name":"Retry-After","value":"3"}]', X'6869', 2, 0);
                INSERT INTO attempt (exchange_sequence, number, started_at, status, circuit_state) VALUES (1, 1, 1000, 503, 'open');
                INSERT INTO event (exchange_sequence, kind, at, message, attributes) VALUES (1, 'circuit', 1001, 'closed → open', '{}');
                """)
        }
        try pool.close()
    }
}
