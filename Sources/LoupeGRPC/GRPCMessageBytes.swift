import Foundation
import SwiftProtobuf

/// A message's serialized bytes, as the wire carries them (without gRPC's 5-byte length prefix).
enum GRPCMessageBytes {
    /// Bytes as they are; a swift-protobuf message serialized again (what its serializer will send); nil for a type
    /// whose bytes the interceptor cannot know (a custom serializer's).
    static func of<Message>(_ message: Message) -> Data? {
        switch message {
        case let bytes as [UInt8]: Data(bytes)
        case let data as Data: data
        case let message as any SwiftProtobuf.Message: try? message.serializedData()
        default: nil
        }
    }
}
