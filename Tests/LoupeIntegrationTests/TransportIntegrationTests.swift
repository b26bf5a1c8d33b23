import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeURLSession
import AsyncHTTPClient
import NIOCore
import Testing

@Suite struct TransportIntegrationTests {
    static let transports: [(String, @Sendable () -> any ClientTransport)] = [
        ("AsyncHTTPClient", { AsyncHTTPClientTransport() }),
        ("URLSession", { URLSessionTransport() }),
    ]

    @Test(arguments: [0, 1])
    func typedEndpointsOverLoopback(transportIndex: Int) async throws {
        try await withDemoServer { baseURL in
            let client = Client(baseURL: baseURL, transport: Self.transports[transportIndex].1())
            let users = try await client.send(DemoEndpoints.ListUsers())
            #expect(users.count == 9)
            #expect(users.contains { $0.name == "東京" })
            let user = try await client.response(DemoEndpoints.GetUser(id: 2))
            #expect(user.value.name == "Grace")
            #expect(user.headerFields[.contentType] == "application/json")
            let created = try await client.send(DemoEndpoints.CreateOrder(order: .init(item: "lens", quantity: 2)))
            let echoed = try JSONSerialization.jsonObject(with: created) as? [String: Any]
            #expect((echoed?["received"] as? [String: Any])?["item"] as? String == "lens")
            let missing = await #expect(throws: ClientError.self) { try await client.send(DemoEndpoints.GetUser(id: 99)) }
            #expect(missing?.response?.status.code == 404)
            #expect(missing?.stage == .validation)
        }
    }

    @Test(arguments: [0, 1])
    func unauthorizedWithBasicChallengeReturnsInsteadOfHanging(transportIndex: Int) async throws {
        try await withDemoServer { baseURL in
            let client = Client(baseURL: baseURL, transport: Self.transports[transportIndex].1())
            let request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("basic"))
            // A hang would outlast any deadline; 30 s, not 10, so that a loaded machine is not taken for one.
            let response = try await client.execute(request, options: RequestOptions(timeout: .seconds(30)))
            #expect(response.status.code == 401)
            #expect(response.headerFields[.wwwAuthenticate] == #"Basic realm="loupe-demo""#)
        }
    }

    @Test func connectionRefusedIsAConnectFailure() async throws {
        // Port 9 (discard) on loopback is closed on CI machines. AsyncHTTPClient keeps retrying a refused
        // connection until its connect timeout, so this test owns a client with a short one.
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .milliseconds(300)
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let client = Client(baseURL: URL(string: "http://127.0.0.1:9")!, transport: transport)
        let error = await #expect(throws: ClientError.self) { try await client.send(DemoEndpoints.ListUsers()) }
        try await transport.shutdown()
        #expect(error?.stage == .transport)
        #expect((error?.underlyingError as? TransportError)?.kind == .connectFailed)
        // In a person's words: not NIO's `connection reset (error set): Connection refused) (errno: 111)`.
        #expect((error?.underlyingError as? TransportError)?.description == "connect failed: connection refused")
    }

    @Test func attemptTimeoutIsATimeout() async throws {
        try await withDemoServer { baseURL in
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport())
            var request = HTTPRequest(method: .get, url: baseURL.appendingPathComponent("slow"))
            request.path = "/slow?ms=3000"
            let error = await #expect(throws: ClientError.self) {
                try await client.execute(request, options: RequestOptions(timeout: .milliseconds(200)))
            }
            #expect((error?.underlyingError as? TransportError)?.kind == .timedOut)
            // The timer cancels the attempt, not the caller: the same task goes on to its next request.
            #expect(error?.stage == .transport)
            #expect(!Task.isCancelled)
            let users = try await client.send(DemoEndpoints.ListUsers())
            #expect(users.count == 9)
        }
    }

    @Test(.timeLimit(.minutes(5))) func cancellingTheCallerCancelsTheRequestOnTheWire() async throws {
        try await withTemporaryDirectory { folder in
            let accessLog = folder.appendingPathComponent("access.log").path
            let server = try await FlakyAPI.start(port: 0, accessLog: accessLog)
            let transport = AsyncHTTPClientTransport()
            let client = Client(baseURL: server.baseURL, transport: transport)
            let task = Task { try await client.send(DemoEndpoints.Slow(milliseconds: 60_000)) }
            // Cancelled once the server has the request (its access log says so), so the cancel must reach the wire;
            // the 60 s answer must not be awaited (30 s leaves a loaded machine room; an answer takes 60).
            await server.arrival(of: "GET /slow")
            let started = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(ContinuousClock.now - started < .seconds(30))
            // The client's connections closed before the server stops (a graceful stop waits for open ones).
            try await transport.shutdown()
            await server.stop()
            guard case .failure(let error as ClientError) = result else {
                Issue.record("expected ClientError, got \(result)")
                return
            }
            #expect(error.stage == .cancelled)
        }
    }
}
