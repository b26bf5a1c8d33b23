import GRPCCore

/// The demo's gRPC messages as their serialized bytes (``DemoGRPCMessage`` writes and reads them): grpc-swift's
/// serializer and deserializer pair for `[UInt8]`, on both the server and the client.
public enum DemoGRPCCoding {
    public struct Serializer: MessageSerializer {
        public init() {}
        public func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
    }

    public struct Deserializer: MessageDeserializer {
        public init() {}
        public func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> [UInt8] {
            serializedMessageBytes.withUnsafeBytes { Array($0) }
        }
    }
}
