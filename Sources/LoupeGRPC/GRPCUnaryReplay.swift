import Foundation
import GRPCCore
import Loupe
import LoupeTrace

/// Sends a recorded unary gRPC call again through a grpc-swift client on `transport`: the recorded method, its
/// metadata and its request message's bytes, recorded through ``LoupeGRPCInterceptor`` as a replay of the original.
///
/// Metadata whose value was redacted when recorded is left out (the secret is gone), unless `credentials` gives it
/// a value, as HTTP replays do (`LOUPE_REPLAY_AUTHORIZATION`); the fields gRPC's transport sets itself
/// (`content-type`, `te`, `grpc-timeout`, `user-agent`, encodings) are its again. The recorded deadline
/// (`grpc-timeout`) is the replay's.
package enum GRPCUnaryReplay {
    /// What the replay got: its status, and the response message when it had one.
    package struct Outcome: Sendable {
        package var code: Int
        package var message: String
        package var response: [UInt8]?
        package var duration: Duration
        /// The exchange the replay was recorded as.
        package var replayID: UUID?
    }

    /// Why a recorded exchange cannot be replayed as a unary gRPC call.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Fields gRPC's transport writes itself, never taken from the recording.
    static let transportFields: Set<String> = [
        "content-type", "te", "grpc-timeout", "user-agent", "grpc-accept-encoding", "grpc-encoding", "host",
        "content-length",
    ]

    /// The call `exchange` recorded: its method, metadata and request message; a refusal when it is no unary gRPC
    /// call whose request was kept whole.
    package static func call(for exchange: TraceExchange, credentials: [(name: String, value: String)] = [])
        throws(Refusal) -> (method: MethodDescriptor, metadata: Metadata, message: [UInt8], timeout: Duration?) {
        guard let stream = exchange.stream, stream.kind == .grpc else { throw Refusal(description: "not a gRPC call") }
        let parts = exchange.operation.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw Refusal(description: "the recorded method '\(exchange.operation)' is not package.Service/Method")
        }
        let sent = stream.messages.filter { $0.direction == .sent }
        guard stream.sentCount == 1, sent.count == 1, stream.receivedCount <= 1 else {
            throw Refusal(description: "only unary gRPC calls replay (this one sent \(stream.sentCount) and received \(stream.receivedCount) messages)")
        }
        guard !sent[0].isTruncated, sent[0].type == "message" else {
            throw Refusal(description: "the request message was not kept whole when recorded")
        }
        var metadata = Metadata()
        var timeout: Duration?
        for header in exchange.requestHeaders {
            let name = header.name.lowercased()
            if name == "grpc-timeout", let seconds = GRPCTimeout.seconds(header.value) {
                timeout = .nanoseconds(Int64(min(seconds, 1e9) * 1e9))
            }
            if transportFields.contains(name) || name.hasPrefix(":") || header.value == RedactionPolicy.marker { continue }
            if credentials.contains(where: { $0.name.lowercased() == name }) { continue }
            append(name, header.value, to: &metadata)
        }
        for (name, value) in credentials { append(name.lowercased(), value, to: &metadata) }
        return (MethodDescriptor(fullyQualifiedService: String(parts[0]), method: String(parts[1])), metadata,
                [UInt8](sent[0].payload), timeout)
    }

    /// A `-bin` field's value is base64 on the wire and in the recording: sent as the bytes it stands for.
    private static func append(_ name: String, _ value: String, to metadata: inout Metadata) {
        if name.hasSuffix("-bin"), let bytes = Data(base64Encoded: value) {
            metadata.addBinary([UInt8](bytes), forKey: name)
        } else {
            metadata.addString(value, forKey: name)
        }
    }

    /// Sends `exchange`'s call again on `transport` (which this runs and shuts down), recording into `observer`.
    package static func replay<Transport: GRPCCore.ClientTransport>(
        _ exchange: TraceExchange, transport: Transport, observer: any ClientObserver,
        credentials: [(name: String, value: String)] = []
    ) async throws -> Outcome {
        let (method, metadata, message, timeout) = try call(for: exchange, credentials: credentials)
        let replayID = ReplayedCallID()
        let client = GRPCClient(transport: LoupeGRPCTransport(wrapping: transport), interceptors: [
            LoupeGRPCInterceptor(observer: MultiplexClientObserver([observer, replayID]), replayOf: exchange.id)])
        var options = CallOptions.defaults
        options.timeout = timeout
        let clock = ContinuousClock()
        let start = clock.now
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.runConnections() }
            defer { client.beginGracefulShutdown() }
            let outcome: Outcome
            do {
                outcome = try await client.unary(
                    request: ClientRequest(message: message, metadata: metadata),
                    descriptor: method,
                    serializer: BytesSerializer(), deserializer: BytesDeserializer(), options: options
                ) { response in
                    switch response.accepted {
                    case .success(let contents):
                        switch contents.message {
                        case .success(let answer):
                            return Outcome(code: 0, message: "", response: answer, duration: start.duration(to: clock.now), replayID: nil)
                        case .failure(let error):
                            return Outcome(code: error.code.rawValue, message: error.message, response: nil,
                                           duration: start.duration(to: clock.now), replayID: nil)
                        }
                    case .failure(let error):
                        return Outcome(code: error.code.rawValue, message: error.message, response: nil,
                                       duration: start.duration(to: clock.now), replayID: nil)
                    }
                }
            } catch let error as RPCError {
                outcome = Outcome(code: error.code.rawValue, message: error.message, response: nil,
                                  duration: start.duration(to: clock.now), replayID: nil)
            }
            client.beginGracefulShutdown()
            try await group.waitForAll()
            var recorded = outcome
            recorded.replayID = replayID.value
            return recorded
        }
    }

    struct BytesSerializer: MessageSerializer {
        func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
    }

    struct BytesDeserializer: MessageDeserializer {
        func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> [UInt8] {
            serializedMessageBytes.withUnsafeBytes { Array($0) }
        }
    }
}
