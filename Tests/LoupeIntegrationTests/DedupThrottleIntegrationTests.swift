import Foundation
import HTTPTypes
import Hummingbird
import Loupe
import LoupeAsyncHTTPClient
import NIOCore
import Synchronization
import Testing

/// De-duplication and throttling over loopback, through AsyncHTTPClient, against Hummingbird servers of their own
/// that hold requests open (see `ServerHold`) instead of sleeping, and count hits and concurrency.
@Suite(.timeLimit(.minutes(5))) struct DedupThrottleIntegrationTests {
    static func heldRouter(_ hold: ServerHold) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/report") { _, _ in
            await hold.pass()
            return plain("report #\(hold.arrivals)")
        }
        router.get("/work/{n}") { _, context in
            await hold.pass()
            return plain("work \(context.parameters.get("n") ?? "")")
        }
        return router
    }

    @Test func identicalConcurrentGETsReachTheServerOnce() async throws {
        let hold = ServerHold()
        try await withLocalServer(Self.heldRouter(hold)) { baseURL in
            let observer = InMemoryClientObserver()
            let dedup = DeduplicationMiddleware()
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(), middlewares: [dedup], observer: observer)
            let url = baseURL.appendingPathComponent("report")
            let tasks = (0..<25).map { _ in Task { try await client.execute(HTTPRequest(method: .get, url: url)) } }
            // The leader is held open on the server until all 24 others have joined it.
            let joined = await hold.eventually { hold in
                hold.arrivals == 1 && observer.events.filter { $0.kind == .dedupJoin }.count == 24
            }
            #expect(joined)
            hold.open()
            for task in tasks {
                let response = try await task.value
                #expect(String(decoding: response.value, as: UTF8.self) == "report #1")
            }
            #expect(hold.arrivals == 1)
            #expect(dedup.inFlightRequests == 0)
        }
    }

    @Test func postsAndDifferentURLsAreNotMergedOnTheWire() async throws {
        let hold = ServerHold()
        let router = Self.heldRouter(hold)
        router.post("/report") { _, _ in
            await hold.pass()
            return plain("posted")
        }
        try await withLocalServer(router) { baseURL in
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(), middlewares: [DeduplicationMiddleware()])
            let requests = [
                HTTPRequest(method: .post, url: baseURL.appendingPathComponent("report")),
                HTTPRequest(method: .post, url: baseURL.appendingPathComponent("report")),
                HTTPRequest(method: .get, url: baseURL.appendingPathComponent("work/1")),
                HTTPRequest(method: .get, url: baseURL.appendingPathComponent("work/2")),
            ]
            let tasks = requests.map { request in Task { try await client.execute(request, body: request.method == .post ? .string("x") : nil) } }
            #expect(await hold.eventually { $0.arrivals == 4 }, "all four must reach the server while all are open")
            hold.open()
            for task in tasks {
                let status = try await task.value.status
                #expect(status == .ok)
            }
        }
    }

    @Test func theServerNeverSeesMoreThanTheThrottleLimit() async throws {
        let hold = ServerHold()
        try await withLocalServer(Self.heldRouter(hold)) { baseURL in
            let observer = InMemoryClientObserver()
            let throttle = ThrottleMiddleware(maxConcurrent: 3)
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(), middlewares: [throttle], observer: observer)
            let tasks = (0..<12).map { n in
                Task { try await client.execute(HTTPRequest(method: .get, url: baseURL.appendingPathComponent("work/\(n)"))) }
            }
            #expect(await hold.eventually { $0.inside == 3 && throttle.snapshot.queued == 9 })
            hold.open()
            for task in tasks {
                let status = try await task.value.status
                #expect(status == .ok)
            }
            #expect(hold.maxInside == 3)
            #expect(hold.arrivals == 12)
            #expect(observer.events.filter { $0.kind == .throttleWait }.count == 9)
            #expect(throttle.snapshot.running == 0 && throttle.snapshot.queued == 0)
        }
    }

    @Test func perHostLimitsHoldAcrossTwoServers() async throws {
        let first = ServerHold()
        let second = ServerHold()
        try await withLocalServer(Self.heldRouter(first)) { one in
            try await withLocalServer(Self.heldRouter(second)) { two in
                let throttle = ThrottleMiddleware(maxConcurrent: nil, maxConcurrentPerHost: 2)
                let client = Client(baseURL: one, transport: AsyncHTTPClientTransport(), middlewares: [throttle])
                let tasks = (0..<10).map { n in
                    Task { try await client.execute(HTTPRequest(method: .get, url: (n % 2 == 0 ? one : two).appendingPathComponent("work/\(n)"))) }
                }
                #expect(await first.eventually { $0.inside == 2 && second.inside == 2 && throttle.snapshot.queued == 6 })
                first.open()
                second.open()
                for task in tasks {
                let status = try await task.value.status
                #expect(status == .ok)
            }
                #expect(first.maxInside == 2 && second.maxInside == 2)
            }
        }
    }

    @Test func cancellingQueuedAndRunningRequestsReturnsEveryPermit() async throws {
        let hold = ServerHold()
        try await withLocalServer(Self.heldRouter(hold)) { baseURL in
            let throttle = ThrottleMiddleware(maxConcurrent: 2)
            let client = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(), middlewares: [throttle])
            let tasks = (0..<6).map { n in
                Task { try await client.execute(HTTPRequest(method: .get, url: baseURL.appendingPathComponent("work/\(n)"))) }
            }
            #expect(await hold.eventually { $0.inside == 2 && throttle.snapshot.queued == 4 })
            for task in tasks { task.cancel() }
            for task in tasks { _ = await task.result }
            #expect(throttle.snapshot.running == 0 && throttle.snapshot.queued == 0)
            hold.open()
        }
    }
}

private func plain(_ text: String) -> Response {
    Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: text)))
}
