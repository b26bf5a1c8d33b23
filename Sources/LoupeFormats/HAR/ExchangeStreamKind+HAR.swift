import Loupe

extension ExchangeStreamKind {
    /// Chrome's `_resourceType` for an entry of this kind: a gRPC call is `fetch`, as browsers record a gRPC-Web call
    /// (its messages are in `_loupe.stream`).
    var harResourceType: String {
        switch self {
        case .eventStream: "eventsource"
        case .webSocket: "websocket"
        case .grpc: "fetch"
        }
    }
}
