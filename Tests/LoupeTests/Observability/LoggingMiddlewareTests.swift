import Foundation
import HTTPTypes
import Logging
import Loupe
import LoupeTesting
import Testing

@Suite struct LoggingMiddlewareTests {
    @Test func logsTheRequestAtDebugAndTheResponseAtInfoWithExchangeMetadata() async throws {
        let (logger, logs) = CapturingLogHandler.logger()
        let clock = ManualClock()
        let client = makeClockedClient(
            scriptedTransport([200], latency: .milliseconds(42), clock: clock),
            middlewares: [LoggingMiddleware(logger: logger)], clock: clock)
        let response = try await client.response(GetUser(id: 1))
        #expect(logs.all.map(\.level) == [.debug, .info])
        let request = try #require(logs.all.first), outcome = try #require(logs.all.last)
        #expect(request.message == "GET https://api.example.com/v1/users/1?fields=id%20name%26more")
        #expect(outcome.message == "200 GET https://api.example.com/v1/users/1?fields=id%20name%26more in 42.0 ms")
        #expect(outcome.metadata["loupe.exchange_id"] == "\(response.exchangeID)")
        #expect(outcome.metadata["loupe.operation"] == "GET /users/1")
        #expect(outcome.metadata["http.response.status_code"] == "200")
        #expect(outcome.metadata["loupe.status_class"] == "2xx")
        #expect(outcome.metadata["loupe.attempts"] == "1")
        #expect(outcome.metadata["loupe.duration_ms"] == "42.0")
    }

    @Test func redactsCredentialsInHeadersAndQueryButKeepsOtherHeaders() async throws {
        let (logger, logs) = CapturingLogHandler.logger()
        let seen = Recorded<HTTPRequest>()
        let client = makeClockedClient(scriptedTransport([200], seen: seen), middlewares: [LoggingMiddleware(logger: logger)])
        var request = HTTPRequest(method: .get, url: URL(string: "https://ada:secret@api.example.com/v1/me?api_key=k3y&page=2")!)
        request.headerFields = [.authorization: "Bearer s3cr3t", .cookie: "session=abc", .accept: "application/json"]
        _ = try await client.execute(request)
        let line = try #require(logs.all.first)
        #expect(line.metadata["http.request.header.authorization"] == .array(["<redacted>"]))
        #expect(line.metadata["http.request.header.cookie"] == .array(["<redacted>"]))
        #expect(line.metadata["http.request.header.accept"] == .array(["application/json"]))
        #expect(line.message == "GET https://api.example.com/v1/me?api_key=%3Credacted%3E&page=2")
        let everything = logs.all.map { "\($0.message) \($0.metadata)" }.joined()
        for secret in ["s3cr3t", "session=abc", "k3y", "ada:secret"] { #expect(!everything.contains(secret)) }
        // Redaction is for the log only: the request on the wire is untouched.
        #expect(seen.values.first?.headerFields[.authorization] == "Bearer s3cr3t")
    }

    @Test func logsFailuresAndServerErrorsAtWarningWithAttemptCount() async throws {
        let (logger, logs) = CapturingLogHandler.logger()
        let client = makeClockedClient(
            scriptedTransport([503]), middlewares: [LoggingMiddleware(logger: logger), RetryOn503(maxAttempts: 3)])
        _ = try? await client.send(Ping())
        let outcome = try #require(logs.all.last)
        #expect(outcome.level == .warning)
        #expect(outcome.metadata["loupe.attempts"] == "3")
        #expect(outcome.metadata["loupe.status_class"] == "5xx")

        let (failingLogger, failures) = CapturingLogHandler.logger()
        let failing = makeClockedClient(
            MockTransport { _, _, _ in throw TransportError(.connectionReset, "peer reset") },
            middlewares: [LoggingMiddleware(logger: failingLogger)])
        await #expect(throws: ClientError.self) { try await failing.send(Ping()) }
        let failure = try #require(failures.all.last)
        #expect(failure.level == .warning)
        #expect(failure.message.hasSuffix("failed after 0.0 ms: connection reset: peer reset"))
        #expect(failure.metadata["error.type"] == "connection_reset")
        #expect(failure.metadata["loupe.status_class"] == "error")
    }

    @Test func levelsAreConfigurableAndHeadersOptional() async throws {
        let (logger, logs) = CapturingLogHandler.logger()
        let middleware = LoggingMiddleware(logger: logger, requestLevel: .trace, responseLevel: .notice, logsHeaders: false)
        _ = try await makeClockedClient(scriptedTransport([404]), middlewares: [middleware]).execute(
            HTTPRequest(method: .get, url: URL(string: "https://api.example.com/missing")!))
        #expect(logs.all.map(\.level) == [.trace, .notice])
        #expect(!logs.all.contains { $0.metadata.keys.contains { $0.hasPrefix("http.request.header") } })
    }
}
