import Foundation
import HTTPTypes
import Loupe
import LoupeTrace
import Synchronization

/// How a stream's replay is paced: LoupeTrace's, named here too so code that imports only LoupeReplay still reads it.
public typealias StreamPacing = LoupeTrace.StreamPacing

/// A recorded WebSocket sent again: the handshake through the replaying client (so its middleware applies), then
/// the client's recorded messages in order (text, binary, ping, and its close with the recorded code and reason),
/// while the server's messages are read and recorded as they come. The new exchange is marked as a replay of the
/// original; `--diff` then compares the server's messages.
struct WebSocketReplay {
    let client: Client
    let transport: any WebSocketTransport
    let pacing: StreamPacing
    /// How long the server has to close after the client's last message when the recording has no close by the
    /// client (the server closed it): then the replay closes with 1000.
    var serverGrace: Duration = .seconds(5)

    /// Headers of the recorded handshake that the WebSocket transport makes afresh for its own connection.
    static let handshakeFields: Set<String> = [
        "connection", "upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
        "sec-websocket-accept",
    ]

    /// The client's messages as they will be sent, or why the recording cannot be replayed faithfully.
    static func clientMessages(of exchange: TraceExchange) throws -> [TraceMessage] {
        guard let stream = exchange.stream else { return [] }
        let sent = stream.messages.filter { $0.direction == .sent }
        if stream.omittedCount > 0, sent.count < stream.sentCount {
            throw TraceReplayer.ReplayError(description: "the recording kept \(sent.count) of the client's \(stream.sentCount) messages (past the recorder's cap); the WebSocket cannot be replayed faithfully")
        }
        if let cut = sent.first(where: \.isTruncated) {
            throw TraceReplayer.ReplayError(description: "the client's message #\(cut.index) was recorded only in part (\(cut.payload.count) of \(cut.size) bytes); the WebSocket cannot be replayed faithfully")
        }
        return sent
    }

    /// Replays `exchange` as `request` (built from the recording); returns the new exchange's id and the handshake's
    /// status.
    func replay(_ exchange: TraceExchange, request: HTTPRequest, timeout: Duration?) async throws -> (UUID?, Int) {
        let messages = try Self.clientMessages(of: exchange)
        var request = request
        for field in request.headerFields where Self.handshakeFields.contains(field.name.canonicalName) {
            request.headerFields[field.name] = nil
        }
        let opened = ContinuousClock.now
        let socket = try await client.webSocket(
            request, transport: transport,
            options: RequestOptions(operation: exchange.operation, timeout: timeout, replayOf: exchange.id))
        // The server's messages are read (and so recorded) while the client's go out, and counted: each client
        // message waits until the server has sent as many as it had before that message in the recording, so the
        // conversation keeps its order however fast it goes (a close sent at once would cut it short).
        let arrivals = ArrivalCounter()
        let reader = Task {
            do {
                for try await _ in socket.messages { arrivals.arrived() }
            } catch {}
            arrivals.end()
        }
        let before = Self.serverMessagesBefore(messages, in: exchange)
        var closed = false
        for (message, expected) in zip(messages, before) {
            await arrivals.wait(for: expected, timeout: serverGrace)
            if pacing == .recorded {
                let offset = message.at.timeIntervalSince(exchange.startedAt)
                if offset > 0 { try? await Task.sleep(until: opened + .milliseconds(Int64(offset * 1000)), clock: .continuous) }
            }
            if Task.isCancelled || arrivals.hasEnded { break }
            do {
                switch message.type {
                case "text": try socket.send(String(decoding: message.payload, as: UTF8.self))
                case "binary": try socket.send(message.payload)
                case "ping": try socket.ping(message.payload)
                case "close":
                    let (code, reason) = Self.close(message.payload)
                    try socket.close(code: code, reason: reason)
                    closed = true
                default: continue  // a pong is the transport's own answer
                }
            } catch {
                break  // the server closed first: what it did is recorded
            }
            if closed { break }
        }
        if !closed, !arrivals.hasEnded {
            // The recording's close was the server's: give it time to close again, then close.
            await arrivals.wait(for: Int.max, timeout: serverGrace)
            try? socket.close(code: 1000, reason: "")
        }
        await reader.value
        await socket.exchangeEnded()
        return (socket.exchangeID, Int(socket.response?.status.code ?? 101))
    }

    /// For each client message, how many server messages the recording has before it.
    static func serverMessagesBefore(_ sent: [TraceMessage], in exchange: TraceExchange) -> [Int] {
        let received = exchange.stream?.messages.filter { $0.direction == .received }.map(\.index) ?? []
        return sent.map { message in received.count { $0 < message.index } }
    }

    /// The code and reason of a recorded close payload (two bytes of code, then the reason); 1000 when it has none.
    static func close(_ payload: Data) -> (Int, String) {
        guard payload.count >= 2 else { return (1000, "") }
        let bytes = [UInt8](payload)
        return (Int(bytes[0]) << 8 | Int(bytes[1]), String(decoding: bytes.dropFirst(2), as: UTF8.self))
    }
}

/// Counts the server's messages as they arrive, for senders waiting on a count (or the end, or a timeout).
final class ArrivalCounter: Sendable {
    private struct Waiter {
        let target: Int
        let continuation: CheckedContinuation<Void, Never>
        let timer: Task<Void, Never>?
    }

    private struct State {
        var count = 0
        var ended = false
        var waiters: [UUID: Waiter] = [:]
    }

    private let state = Mutex(State())

    var hasEnded: Bool { state.withLock { $0.ended } }

    func arrived() {
        let ready = state.withLock { state -> [Waiter] in
            state.count += 1
            let ready = state.waiters.filter { $0.value.target <= state.count }
            for id in ready.keys { state.waiters[id] = nil }
            return Array(ready.values)
        }
        for waiter in ready { waiter.timer?.cancel(); waiter.continuation.resume() }
    }

    func end() {
        let all = state.withLock { state -> [Waiter] in
            state.ended = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in all { waiter.timer?.cancel(); waiter.continuation.resume() }
    }

    /// Returns once `target` messages have arrived, the stream has ended, or `timeout` has passed.
    func wait(for target: Int, timeout: Duration) async {
        let id = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let timer = Task { [weak self] in
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                self?.release(id)
            }
            let ready = state.withLock { state -> Bool in
                if state.count >= target || state.ended { return true }
                state.waiters[id] = Waiter(target: target, continuation: continuation, timer: timer)
                return false
            }
            if ready {
                timer.cancel()
                continuation.resume()
            }
        }
    }

    private func release(_ id: UUID) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.continuation.resume()
    }
}
