import Foundation
import Loupe

/// Drives a mix of calls against the flaky API through a Loupe client, the way a busy app would.
public struct DemoTraffic: Sendable {
    public let client: Client
    /// Concurrent callers.
    public var workers: Int
    /// Pause between one caller's requests.
    public var pause: Duration

    /// Concurrent calls to `/burst` every ``burstInterval``, from 3 s after the start (0: none): each wants two
    /// retries, more than the client's retry budget (20% of its requests) allows, so some are denied.
    public var burstSize: Int
    public var burstInterval: Duration
    /// A model-like answer streamed from `/completions` (server-sent events, one in three cut mid-way and resumed
    /// with `Last-Event-ID`) every this often; nil for none.
    public var completionInterval: Duration?
    /// A `/ticker` WebSocket session (subscribe, ticks, a ping, a close; one in three closed by the server) every
    /// this often, over `webSocketTransport`; nil for none.
    public var tickerInterval: Duration?
    /// The WebSocket protocol's transport (the demo's is `NIOWebSocketTransport`, from `LoupeWebSocket`).
    public var webSocketTransport: (any WebSocketTransport)?
    /// gRPC calls to the demo's service every ``grpcInterval`` (two `Reserve`s, one of them retried, then a
    /// server-streaming `Watch`); nil for none.
    public var grpc: DemoGRPCCalls?
    public var grpcInterval: Duration

    public init(client: Client, workers: Int = 3, pause: Duration = .milliseconds(250), burstSize: Int = 40,
                burstInterval: Duration = .seconds(10), completionInterval: Duration? = nil,
                tickerInterval: Duration? = nil, webSocketTransport: (any WebSocketTransport)? = nil,
                grpc: DemoGRPCCalls? = nil, grpcInterval: Duration = .seconds(1)) {
        self.client = client
        self.grpc = grpc
        self.grpcInterval = grpcInterval
        self.completionInterval = completionInterval
        self.tickerInterval = tickerInterval
        self.webSocketTransport = webSocketTransport
        self.workers = workers
        self.pause = pause
        self.burstSize = burstSize
        self.burstInterval = burstInterval
    }

    /// Sends requests until the task is cancelled or `deadline` passes; returns how many were sent.
    @discardableResult
    public func run(until deadline: ContinuousClock.Instant? = nil) async -> Int {
        await withTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var sent = 0
                    var step = worker
                    while !Task.isCancelled, deadline.map({ ContinuousClock.now < $0 }) ?? true {
                        await call(step)
                        sent += 1
                        step += workers
                        try? await Task.sleep(for: pause)
                    }
                    return sent
                }
            }
            if burstSize > 0 {
                group.addTask { await bursts(until: deadline) }
            }
            if let completionInterval {
                group.addTask { await completions(every: completionInterval, until: deadline) }
            }
            if let tickerInterval, let webSocketTransport {
                group.addTask { await tickers(every: tickerInterval, over: webSocketTransport, until: deadline) }
            }
            if let grpc {
                group.addTask { await grpcCalls(grpc, until: deadline) }
            }
            return await group.reduce(0, +)
        }
    }

    /// Sends ``burstSize`` calls at once, 3 s after the start and every ``burstInterval`` after that.
    private func bursts(until deadline: ContinuousClock.Instant?) async -> Int {
        var next = ContinuousClock.now + .seconds(3)
        var sent = 0
        while true {
            if let deadline, next >= deadline { return sent }
            do { try await Task.sleep(until: next, clock: .continuous) } catch { return sent }
            await withTaskGroup(of: Void.self) { group in
                for number in 0..<burstSize {
                    group.addTask { _ = try? await client.send(DemoEndpoints.Burst(number: number)) }
                }
            }
            sent += burstSize
            next += burstInterval
        }
    }

    /// The gRPC calls from the start, one every ``grpcInterval``, until the deadline; returns how many exchanges
    /// they were (a retried call is one per attempt, as grpc-swift runs the interceptor per attempt).
    private func grpcCalls(_ grpc: DemoGRPCCalls, until deadline: ContinuousClock.Instant?) async -> Int {
        let interval = grpcInterval
        return await grpc.connected { grpc in
            var exchanges = 0
            var step: UInt64 = 0
            while !Task.isCancelled, deadline.map({ ContinuousClock.now < $0 }) ?? true {
                step += 1
                if step % 3 == 0 {
                    await grpc.watch(updates: 5)
                    exchanges += 1
                } else {
                    exchanges += await grpc.reserve(order: step).attempts
                }
                do { try await Task.sleep(for: interval) } catch { break }
            }
            return exchanges
        }
    }

    /// Streams `/completions` to its end, then waits `interval`, until the deadline; returns how many streams ran.
    private func completions(every interval: Duration, until deadline: ContinuousClock.Instant?) async -> Int {
        var sent = 0
        while !Task.isCancelled, deadline.map({ ContinuousClock.now < $0 }) ?? true {
            _ = await streamCompletion()
            sent += 1
            do { try await Task.sleep(for: interval) } catch { return sent }
        }
        return sent
    }

    /// One streamed answer from `/completions`, read to its end: its tokens, in order (a cut stream resumes).
    public func streamCompletion() async -> [String] {
        var tokens: [String] = []
        do {
            for try await event in client.events(DemoEndpoints.Completion(),
                                                 stream: EventStreamOptions(reconnectDelay: .milliseconds(300))) {
                tokens.append(event.data)
            }
        } catch {}  // failures are recorded; the demo goes on
        return tokens
    }

    /// A `/ticker` session, then a wait of `interval`, until the deadline; returns how many sessions ran.
    private func tickers(every interval: Duration, over transport: any WebSocketTransport,
                         until deadline: ContinuousClock.Instant?) async -> Int {
        var sessions = 0
        while !Task.isCancelled, deadline.map({ ContinuousClock.now < $0 }) ?? true {
            _ = await streamTicker(over: transport)
            sessions += 1
            do { try await Task.sleep(for: interval) } catch { return sessions }
        }
        return sessions
    }

    /// What one `/ticker` session received, and how it closed.
    public struct TickerSession: Sendable {
        /// Every text message after the greeting, in order.
        public var ticks: [String] = []
        /// The binary snapshots received.
        public var snapshots = 0
        /// The close, when the connection closed.
        public var close: WebSocketClose?
        /// Why it could not open or broke, when it did.
        public var error: String?
    }

    /// One `/ticker` session as an app would run it: subscribe after the greeting, a ping halfway, close with 1000
    /// after the last tick (unless the server closes first, as it does every third time).
    public func streamTicker(over transport: any WebSocketTransport, symbol: String = "LOUPE") async -> TickerSession {
        var session = TickerSession()
        do {
            let socket = try await client.webSocket(DemoEndpoints.Ticker(), transport: transport)
            for try await message in socket.messages {
                switch message {
                case .text(let text) where text == FlakyAPI.tickerHello:
                    try socket.send(#"{"subscribe":"\#(symbol)"}"#)
                case .text(let text):
                    session.ticks.append(text)
                    if session.ticks.count == FlakyAPI.tickCount / 2 { try socket.ping(Data("halfway".utf8)) }
                    if session.ticks.count == FlakyAPI.tickCount { try socket.close(code: 1000, reason: "enough ticks") }
                case .binary:
                    session.snapshots += 1
                }
            }
            await socket.exchangeEnded()
            session.close = socket.closeInfo
        } catch {
            session.error = String(describing: error)  // recorded too; the demo goes on
        }
        return session
    }

    /// One call of the mix; failures are expected (that is the point) and end up in the recorder.
    public func call(_ step: Int) async {
        switch step % 10 {
        case 0: _ = try? await client.send(DemoEndpoints.ListUsers())
        case 1: _ = try? await client.send(DemoEndpoints.GetUser(id: step % 12 + 1))
        case 2: _ = try? await client.send(DemoEndpoints.Flaky())
        case 6: _ = try? await client.send(DemoEndpoints.Inventory())
        case 3: _ = try? await client.send(DemoEndpoints.Slow(milliseconds: 100 + (step * 37) % 900))
        case 4: _ = try? await client.send(DemoEndpoints.Profile(token: FlakyAPI.demoToken))
        case 5: _ = try? await client.send(DemoEndpoints.CreateOrder(order: .init(item: "loupe", quantity: step % 5 + 1)))
        case 7: _ = try? await client.send(DemoEndpoints.Profile(token: "expired-token"))
        case 8: _ = try? await client.send(DemoEndpoints.Binary())
        default: _ = try? await client.send(DemoEndpoints.Inventory())
        }
    }
}
