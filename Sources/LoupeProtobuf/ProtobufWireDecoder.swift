/// Reads the protobuf wire format without a schema, as `protoc --decode_raw` does: field numbers and wire types,
/// and length-delimited fields taken for nested messages when their bytes read as one.
///
/// Any bytes are safe to give it: every length is checked against what is left, varints stop at ten bytes, and
/// nesting stops at ``maxDepth`` (below it, bytes stay bytes), so the work is bounded by the input's size times the
/// depth.
public enum ProtobufWireDecoder {
    /// How deep nested messages are guessed (protoc's own limit for unknown fields).
    public static let maxDepth = 10
    /// How deep groups may nest: beyond it the input is refused.
    static let maxGroupDepth = 100

    /// The fields of `bytes`, or nil when they are not a protobuf message (a bad tag, a length past the end, a
    /// group left open, wire type 6 or 7).
    public static func decode(_ bytes: some Collection<UInt8>) -> [ProtobufField]? {
        decode(Array(bytes), depth: maxDepth)
    }

    static func decode(_ bytes: [UInt8], depth: Int) -> [ProtobufField]? {
        var reader = Reader(bytes: bytes)
        guard let fields = reader.fields(depth: depth, endGroup: nil, groupDepth: 0), reader.atEnd else { return nil }
        return fields
    }

    /// A cursor over the bytes; every read checks what is left.
    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        mutating func varint() -> UInt64? {
            ProtobufWireRecord.varint(bytes[...], &offset)
        }

        mutating func fixed(_ count: Int) -> UInt64? {
            guard bytes.count - offset >= count else { return nil }
            var value: UInt64 = 0
            for index in 0..<count { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            offset += count
            return value
        }

        /// Fields up to the end of the bytes, or (in a group) up to the group's end tag.
        mutating func fields(depth: Int, endGroup: Int?, groupDepth: Int) -> [ProtobufField]? {
            var fields: [ProtobufField] = []
            while !atEnd {
                guard let tag = varint(), tag <= UInt64(UInt32.max) else { return nil }
                let number = Int(tag >> 3)
                guard number > 0 else { return nil }
                switch tag & 7 {
                case 0:
                    guard let value = varint() else { return nil }
                    fields.append(ProtobufField(number: number, value: .varint(value)))
                case 1:
                    guard let value = fixed(8) else { return nil }
                    fields.append(ProtobufField(number: number, value: .fixed64(value)))
                case 5:
                    guard let value = fixed(4) else { return nil }
                    fields.append(ProtobufField(number: number, value: .fixed32(UInt32(value))))
                case 2:
                    guard let length = varint(), length <= UInt64(bytes.count - offset) else { return nil }
                    let payload = Array(bytes[offset..<offset + Int(length)])
                    offset += Int(length)
                    if !payload.isEmpty, depth > 0, let nested = ProtobufWireDecoder.decode(payload, depth: depth - 1) {
                        fields.append(ProtobufField(number: number, value: .message(nested)))
                    } else {
                        fields.append(ProtobufField(number: number, value: .bytes(payload)))
                    }
                case 3:
                    guard groupDepth < ProtobufWireDecoder.maxGroupDepth,
                          let inner = self.fields(depth: depth, endGroup: number, groupDepth: groupDepth + 1) else {
                        return nil
                    }
                    fields.append(ProtobufField(number: number, value: .group(inner)))
                case 4:
                    return endGroup == number ? fields : nil
                default:
                    return nil
                }
            }
            // The bytes ended: right for a message, wrong inside a group.
            return endGroup == nil ? fields : nil
        }
    }
}
