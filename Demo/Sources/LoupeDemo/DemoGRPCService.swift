import GRPCCore
import Synchronization

/// `loupe.demo.Warehouse` (Demo/loupe_demo.proto), the gRPC service beside the demo's HTTP API: `Reserve` fails
/// with `UNAVAILABLE` on the first attempt of every second order and answers the retry, `Watch` streams stock levels.
final class DemoGRPCService: RegistrableRPCService {
    static let service = "loupe.demo.Warehouse"
    static let reserve = MethodDescriptor(fullyQualifiedService: service, method: "Reserve")
    static let watch = MethodDescriptor(fullyQualifiedService: service, method: "Watch")
    /// The most stock levels one `Watch` sends, whatever it asks for.
    static let maxUpdates = 20
    /// The gap between two stock levels of a `Watch`.
    static let updateGap = Duration.milliseconds(100)
    /// The most orders waiting for their retry; past it the oldest are forgotten (and their retry fails again).
    static let maxWaitingOrders = 1024

    /// Orders whose first attempt was refused, in the order they were: their retry is answered.
    private let refused = Mutex<[UInt64]>([])
    private let stock = Mutex(1000)

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        router.registerHandler(forMethod: Self.reserve, deserializer: DemoGRPCCoding.Deserializer(),
                               serializer: DemoGRPCCoding.Serializer()) { request, _ in
            var first: [UInt8]?
            for try await message in request.messages where first == nil { first = message }
            return StreamingServerResponse(single: try self.reserve(first ?? []))
        }
        router.registerHandler(forMethod: Self.watch, deserializer: DemoGRPCCoding.Deserializer(),
                               serializer: DemoGRPCCoding.Serializer()) { request, _ in
            var first: [UInt8]?
            for try await message in request.messages where first == nil { first = message }
            let fields = DemoGRPCMessage.fields(first ?? [])
            let item = fields?[1]?.text ?? ""
            let updates = Int(min(fields?[2]?.number ?? 0, UInt64(Self.maxUpdates)))
            return StreamingServerResponse(of: [UInt8].self) { writer in
                for sequence in 1...max(updates, 1) {
                    let level = self.stock.withLock { $0 } - sequence * 7
                    try await writer.write(DemoGRPCMessage.stockLevel(item: item, level: level, sequence: sequence))
                    if sequence < updates { try await Task.sleep(for: Self.updateGap) }
                }
                return [:]
            }
        }
    }

    /// The answer to one `Reserve` attempt.
    func reserve(_ message: [UInt8]) throws -> ServerResponse<[UInt8]> {
        guard let fields = DemoGRPCMessage.fields(message), let order = fields[3]?.number, order > 0 else {
            throw RPCError(code: .invalidArgument, message: "a ReserveRequest needs an order number")
        }
        let retry = refused.withLock { refused -> Bool in
            if let index = refused.firstIndex(of: order) {
                refused.remove(at: index)
                return true
            }
            guard order % 2 == 0 else { return true }
            if refused.count >= Self.maxWaitingOrders { refused.removeFirst() }
            refused.append(order)
            return false
        }
        guard retry else { throw RPCError(code: .unavailable, message: "warehouse busy, try again") }
        let quantity = Int(min(fields[2]?.number ?? 1, 1000))
        let remaining = stock.withLock { stock in
            stock = stock - quantity > 0 ? stock - quantity : 1000
            return stock
        }
        return ServerResponse(message: DemoGRPCMessage.reservation(
            order: order, item: fields[1]?.text ?? "", remaining: remaining), metadata: ["x-warehouse": "loupe-demo"])
    }
}
