/// One field of a protobuf message read without its schema: its number and what the wire carried.
public struct ProtobufField: Sendable, Hashable {
    /// What a field's wire type carried.
    public enum Value: Sendable, Hashable {
        /// Wire type 0, as the unsigned 64-bit number on the wire (a negative `int32`/`int64` is ten bytes, read back
        /// as a number from 2^63).
        case varint(UInt64)
        /// Wire type 1.
        case fixed64(UInt64)
        /// Wire type 5.
        case fixed32(UInt32)
        /// Wire type 2 whose bytes do not read as a message: a string, bytes, or a packed field.
        case bytes([UInt8])
        /// Wire type 2 whose bytes read as a message, guessed as `protoc --decode_raw` guesses.
        case message([ProtobufField])
        /// Wire types 3 and 4: a group's fields.
        case group([ProtobufField])
    }

    /// The field number (1 to 2^29 − 1).
    public var number: Int
    public var value: Value

    public init(number: Int, value: Value) {
        self.number = number
        self.value = value
    }
}
