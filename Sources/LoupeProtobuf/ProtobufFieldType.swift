/// One field of a message type in a descriptor set: what its number means.
public struct ProtobufFieldType: Sendable, Hashable {
    /// `FieldDescriptorProto.Type`: how the field's value is written on the wire and read back.
    public enum Kind: Int, Sendable, Hashable {
        case double = 1, float, int64, uint64, int32, fixed64, fixed32, bool, string, group, message, bytes, uint32,
             `enum`, sfixed32, sfixed64, sint32, sint64

        /// Scalars a repeated field may carry packed in one length-delimited record.
        var isPackable: Bool { ![.string, .group, .message, .bytes].contains(self) }
    }

    /// The name in the `.proto` file (`user_id`).
    public var name: String
    /// The name in protobuf's JSON mapping (`userId`): protoc's `json_name`.
    public var jsonName: String
    public var number: Int
    public var kind: Kind
    public var isRepeated: Bool
    /// The message or enum type's full name, without a leading dot (`loupe.test.Ping`), for those kinds.
    public var typeName: String?
    /// The oneof it belongs to (an index into its message's oneofs), if any.
    public var oneofIndex: Int?
    /// Whether the message tells "set to the default" from "not set": proto2 fields, proto3 `optional` ones,
    /// messages and oneof members. A field without presence is left out of JSON at its default value.
    public var hasPresence: Bool
}
