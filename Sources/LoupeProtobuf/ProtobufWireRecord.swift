/// One field as the wire carries it, read against no schema and guessing nothing: what a reader that knows the
/// message's type (``ProtobufJSON``, ``ProtobufDescriptorSet``) interprets.
struct ProtobufWireRecord {
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case fixed32(UInt32)
        /// Wire type 2's bytes.
        case bytes(ArraySlice<UInt8>)
        /// A group's fields, between its start and end tags.
        case group(ArraySlice<UInt8>)
    }

    var number: Int
    var value: Value

    /// The records of `bytes` in wire order, or nil when they are not a protobuf message (a bad tag, a length past
    /// the end, a group left open or nested past ``ProtobufWireDecoder/maxGroupDepth``).
    static func read(_ bytes: ArraySlice<UInt8>) -> [ProtobufWireRecord]? {
        var records: [ProtobufWireRecord] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            guard let record = next(bytes, &offset, groupDepth: 0) else { return nil }
            guard let record else { return nil }  // an end-group tag outside any group
            records.append(record)
        }
        return records
    }

    /// The record at `offset`; `.some(nil)` for an end-group tag (its number checked by the caller), nil for bad
    /// bytes.
    private static func next(_ bytes: ArraySlice<UInt8>, _ offset: inout Int, groupDepth: Int)
        -> ProtobufWireRecord?? {
        guard let tag = varint(bytes, &offset), tag <= UInt64(UInt32.max), tag >> 3 > 0 else { return nil }
        let number = Int(tag >> 3)
        switch tag & 7 {
        case 0:
            guard let value = varint(bytes, &offset) else { return nil }
            return ProtobufWireRecord(number: number, value: .varint(value))
        case 1:
            guard let value = fixed(bytes, &offset, 8) else { return nil }
            return ProtobufWireRecord(number: number, value: .fixed64(value))
        case 5:
            guard let value = fixed(bytes, &offset, 4) else { return nil }
            return ProtobufWireRecord(number: number, value: .fixed32(UInt32(value)))
        case 2:
            guard let length = varint(bytes, &offset), length <= UInt64(bytes.endIndex - offset) else { return nil }
            let start = offset
            offset += Int(length)
            return ProtobufWireRecord(number: number, value: .bytes(bytes[start..<offset]))
        case 3:
            guard groupDepth < ProtobufWireDecoder.maxGroupDepth else { return nil }
            let start = offset
            while true {
                guard offset < bytes.endIndex else { return nil }
                let before = offset
                guard let inner = next(bytes, &offset, groupDepth: groupDepth + 1) else { return nil }
                if inner == nil {
                    // The end tag must close this group: re-read its number.
                    var at = before
                    guard let endTag = varint(bytes, &at), Int(endTag >> 3) == number else { return nil }
                    return ProtobufWireRecord(number: number, value: .group(bytes[start..<before]))
                }
            }
        case 4:
            return .some(nil)
        default:
            return nil
        }
    }

    static func varint(_ bytes: ArraySlice<UInt8>, _ offset: inout Int) -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.endIndex, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
        return nil
    }

    static func fixed(_ bytes: ArraySlice<UInt8>, _ offset: inout Int, _ count: Int) -> UInt64? {
        guard bytes.endIndex - offset >= count else { return nil }
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += count
        return value
    }
}
