/// A method of a service in a descriptor set: what its requests and responses are.
public struct ProtobufMethod: Sendable, Hashable {
    /// As gRPC names it and Loupe records it: `package.Service/Method`.
    public var path: String
    /// The request message's full name.
    public var input: String
    /// The response message's full name.
    public var output: String
    public var clientStreaming: Bool
    public var serverStreaming: Bool

    /// Whether it takes one message and answers one (the calls `loupe replay` sends again).
    public var isUnary: Bool { !clientStreaming && !serverStreaming }
}
