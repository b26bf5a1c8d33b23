import GRPCCore
import GRPCNIOTransportHTTP2
import Loupe
import LoupeGRPC

/// The demo's gRPC client: grpc-swift over HTTP/2 to ``DemoGRPCServer``, with a retry policy for `Reserve`'s
/// `UNAVAILABLE` and Loupe's interceptor recording every attempt into the demo's recorder.
public struct DemoGRPCCalls: Sendable {
    let client: GRPCClient<LoupeGRPCTransport<HTTP2ClientTransport.Posix>>

    /// A client of the service on 127.0.0.1:`port`, recording into `observer`; `Reserve` gives up after `timeout`
    /// (a test on a loaded machine gives it longer than the demo's five seconds).
    public init(port: Int, observer: any ClientObserver, timeout: Duration = .seconds(5)) throws {
        let retry = RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(50), maxBackoff: .milliseconds(200),
                                backoffMultiplier: 2, retryableStatusCodes: [.unavailable])
        let transport = try HTTP2ClientTransport.Posix(
            target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext,
            serviceConfig: ServiceConfig(methodConfig: [MethodConfig(
                names: [MethodConfig.Name(service: DemoGRPCService.service, method: "Reserve")],
                timeout: timeout, executionPolicy: .retry(retry))]))
        client = GRPCClient(transport: LoupeGRPCTransport(wrapping: transport),
                            interceptors: [LoupeGRPCInterceptor(observer: observer)])
    }

    /// Runs the client's connections while `body` calls, then closes them; returns what `body` did.
    public func connected<Result: Sendable>(_ body: @Sendable (DemoGRPCCalls) async -> Result) async -> Result {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await client.runConnections() }
            let result = await body(self)
            client.beginGracefulShutdown()
            await group.waitForAll()
            return result
        }
    }

    /// One `Reserve` of `order` (inside ``connected(_:)``): how many attempts the interceptor saw (two for an even
    /// order, whose first attempt the service refuses), and the status the call ended with.
    @discardableResult
    public func reserve(order: UInt64, item: String = "loupe") async -> (attempts: Int, code: RPCError.Code?) {
        let request = ClientRequest(message: DemoGRPCMessage.reserveRequest(item: item, quantity: Int(order % 3) + 1,
                                                                          order: order),
                                    metadata: ["x-demo-order": "\(order)"])
        do {
            let metadata = try await client.unary(
                request: request, descriptor: DemoGRPCService.reserve, serializer: DemoGRPCCoding.Serializer(),
                deserializer: DemoGRPCCoding.Deserializer(), options: .defaults) { response in
                _ = try response.message
                return response.metadata
            }
            return (Self.attempts(metadata), nil)
        } catch let error as RPCError {
            return (Self.attempts(error.metadata), error.code)
        } catch {
            return (1, .unknown)
        }
    }

    /// One `Watch` of `updates` stock levels, read to the end: how many arrived.
    @discardableResult
    public func watch(item: String = "loupe", updates: Int) async -> Int {
        let request = ClientRequest(message: DemoGRPCMessage.watchRequest(item: item, updates: updates))
        return (try? await client.serverStreaming(
            request: request, descriptor: DemoGRPCService.watch, serializer: DemoGRPCCoding.Serializer(),
            deserializer: DemoGRPCCoding.Deserializer(), options: .defaults) { response in
            var count = 0
            for try await _ in response.messages { count += 1 }
            return count
        }) ?? 0
    }

    /// grpc-swift's count of earlier attempts, on the metadata of the attempt that ended the call, plus that one.
    static func attempts(_ metadata: Metadata) -> Int {
        for value in metadata[stringValues: "grpc-previous-rpc-attempts"] {
            if let previous = Int(value), (0..<100).contains(previous) { return previous + 1 }
        }
        return 1
    }
}
