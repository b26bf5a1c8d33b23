import Loupe
import Tracing

/// OpenTelemetry's RPC attributes for a gRPC call (`rpc.system`, `rpc.service`, `rpc.method`,
/// `rpc.grpc.status_code`), beside the HTTP ones its POST carries.
enum SpanRPCAttributes {
    static func set(_ exchange: TraceExchange, on attributes: inout SpanAttributes) {
        guard let stream = exchange.stream, stream.kind == .grpc else { return }
        attributes["rpc.system"] = "grpc"
        // The operation is `package.Service/Method`.
        if let slash = exchange.operation.lastIndex(of: "/") {
            attributes["rpc.service"] = String(exchange.operation[..<slash])
            attributes["rpc.method"] = String(exchange.operation[exchange.operation.index(after: slash)...])
        }
        if let code = stream.closeCode {
            attributes["rpc.grpc.status_code"] = code
            if code != 0 { attributes["error.type"] = GRPCStatusName.name(code) }
        }
    }
}
