/// The demo's gRPC messages (Demo/loupe_demo.proto) written and read by hand as protobuf's wire format: the few
/// scalar fields the demo needs, so neither side needs generated code.
public enum DemoGRPCMessage {
    /// `ReserveRequest { item = 1; quantity = 2; order = 3 }`.
    public static func reserveRequest(item: String, quantity: Int, order: UInt64) -> [UInt8] {
        string(1, item) + varint(2, UInt64(quantity)) + varint(3, order)
    }

    /// `Reservation { order = 1; item = 2; remaining = 3 }`.
    public static func reservation(order: UInt64, item: String, remaining: Int) -> [UInt8] {
        varint(1, order) + string(2, item) + varint(3, UInt64(remaining))
    }

    /// `WatchRequest { item = 1; updates = 2 }`.
    public static func watchRequest(item: String, updates: Int) -> [UInt8] {
        string(1, item) + varint(2, UInt64(updates))
    }

    /// `StockLevel { item = 1; level = 2; sequence = 3 }`; `level` may be negative (a backorder).
    public static func stockLevel(item: String, level: Int, sequence: Int) -> [UInt8] {
        string(1, item) + varint(2, UInt64(bitPattern: Int64(level))) + varint(3, UInt64(sequence))
    }

    /// The varint and length-delimited fields of `bytes` by number (the last of each wins, as protobuf reads them);
    /// nil for bytes that are not such a message.
    public static func fields(_ bytes: [UInt8]) -> [Int: Field]? {
        var fields: [Int: Field] = [:]
        var index = 0
        while index < bytes.count {
            guard let key = readVarint(bytes, &index), key >> 3 > 0, key >> 3 < 1 << 29 else { return nil }
            switch key & 7 {
            case 0:
                guard let value = readVarint(bytes, &index) else { return nil }
                fields[Int(key >> 3)] = .varint(value)
            case 2:
                guard let length = readVarint(bytes, &index), length <= UInt64(bytes.count - index) else { return nil }
                fields[Int(key >> 3)] = .bytes(Array(bytes[index..<index + Int(length)]))
                index += Int(length)
            default:
                return nil
            }
        }
        return fields
    }

    /// A field's value as the wire carries it.
    public enum Field: Sendable, Equatable {
        case varint(UInt64)
        case bytes([UInt8])

        /// The value of a varint field; nil for bytes.
        public var number: UInt64? {
            if case .varint(let value) = self { return value }
            return nil
        }

        /// The value of a string field; nil for a varint.
        public var text: String? {
            if case .bytes(let value) = self { return String(decoding: value, as: UTF8.self) }
            return nil
        }
    }

    static func varint(_ field: Int, _ value: UInt64) -> [UInt8] {
        value == 0 ? [] : encode(UInt64(field << 3)) + encode(value)
    }

    static func string(_ field: Int, _ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        return bytes.isEmpty ? [] : encode(UInt64(field << 3 | 2)) + encode(UInt64(bytes.count)) + bytes
    }

    static func encode(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return out + [UInt8(value)]
    }

    static func readVarint(_ bytes: [UInt8], _ index: inout Int) -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte < 0x80 { return value }
        }
        return nil
    }
}
