import GRPCCore

/// Messages as their serialized bytes: the tests call the Python service with `GRPCClient`'s own calls and no
/// generated code, so what the interceptor records can be compared byte for byte with what the test built.
struct RawBytesSerializer: MessageSerializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
}

struct RawBytesDeserializer: MessageDeserializer {
    func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> [UInt8] {
        serializedMessageBytes.withUnsafeBytes { Array($0) }
    }
}

/// `loupe.test.Ping` and `Pong` written by hand (text = 1, number = 2), the few fields the tests need.
enum TestMessage {
    static func ping(_ text: String, number: Int = 0) -> [UInt8] {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        if !bytes.isEmpty { out += [0x0A] + varint(UInt64(bytes.count)) + bytes }
        if number != 0 { out += [0x10] + varint(UInt64(bitPattern: Int64(number))) }
        return out
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return out + [UInt8(value)]
    }
}
