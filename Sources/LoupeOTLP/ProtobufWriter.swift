/// Protocol Buffers' wire format, written by hand for the few OTLP messages Loupe sends: varints,
/// length-delimited fields (strings, bytes, nested messages), fixed64 and doubles, in field-number order.
///
/// Proto3 leaves a field at its default value (0, empty) off the wire; the writer's callers do the same, so the
/// bytes match what protobuf's own encoders write for the same message.
struct ProtobufWriter {
    /// The encoded bytes so far.
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// The wire types this writer uses.
    private enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
    }

    mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private mutating func writeTag(_ field: Int, _ type: WireType) {
        writeVarint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    /// An `int64`, `uint32` or enum field (negative numbers take ten bytes, as protobuf writes them); omitted at 0
    /// unless `always` (a member of a `oneof`, which is written whenever it is the one set).
    mutating func varintField(_ field: Int, _ value: Int64, always: Bool = false) {
        guard value != 0 || always else { return }
        writeTag(field, .varint)
        writeVarint(UInt64(bitPattern: value))
    }

    /// A `bool` field; omitted when false unless `always`.
    mutating func boolField(_ field: Int, _ value: Bool, always: Bool = false) {
        guard value || always else { return }
        writeTag(field, .varint)
        writeVarint(value ? 1 : 0)
    }

    /// A `fixed64` field (OTLP's timestamps); omitted at 0.
    mutating func fixed64Field(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        writeTag(field, .fixed64)
        writeLittleEndian(value)
    }

    /// A `double` field; omitted at +0.0, as proto3 does, unless `always`.
    mutating func doubleField(_ field: Int, _ value: Double, always: Bool = false) {
        guard value.bitPattern != 0 || always else { return }
        writeTag(field, .fixed64)
        writeLittleEndian(value.bitPattern)
    }

    /// A `string` field; omitted when empty unless `always`.
    mutating func stringField(_ field: Int, _ value: String, always: Bool = false) {
        guard !value.isEmpty || always else { return }
        writeTag(field, .lengthDelimited)
        var value = value
        value.withUTF8 { utf8 in
            writeVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A `bytes` field; omitted when empty.
    mutating func bytesField(_ field: Int, _ value: some Collection<UInt8>) {
        guard !value.isEmpty else { return }
        writeTag(field, .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A nested message (always written, even when empty: a repeated message or a set `oneof` must be present).
    ///
    /// The body is written in place after a one-byte length, which is widened afterwards when the body turns out
    /// to be 128 bytes or more (one move of the body, instead of encoding it twice to learn its size first).
    mutating func messageField(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        writeTag(field, .lengthDelimited)
        let lengthAt = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - lengthAt - 1
        var prefix = ProtobufWriter()
        prefix.writeVarint(UInt64(length))
        bytes.replaceSubrange(lengthAt..<lengthAt + 1, with: prefix.bytes)
    }

    private mutating func writeLittleEndian(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}

/// Reads just enough Protocol Buffers to find one field of a response: OTLP's partial success.
struct ProtobufReader {
    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A field's number and value: a varint's value, or a length-delimited field's bytes.
    enum Value {
        case varint(UInt64)
        case bytes([UInt8])
        case other
    }

    /// The next field, nil at the end or when the bytes are malformed (an answer never fails an export).
    mutating func next() -> (field: Int, value: Value)? {
        guard let tag = readVarint() else { return nil }
        let field = Int(truncatingIfNeeded: tag >> 3)
        switch tag & 7 {
        case 0:
            return readVarint().map { (field, .varint($0)) }
        case 1:
            guard bytes.count - at >= 8 else { return nil }
            at += 8
            return (field, .other)
        case 2:
            guard let length = readVarint(), length <= UInt64(bytes.count - at) else { return nil }
            let value = Array(bytes[at..<at + Int(length)])
            at += Int(length)
            return (field, .bytes(value))
        case 5:
            guard bytes.count - at >= 4 else { return nil }
            at += 4
            return (field, .other)
        default:
            return nil
        }
    }

    private mutating func readVarint() -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard at < bytes.count else { return nil }
            let byte = bytes[at]
            at += 1
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte < 0x80 { return value }
        }
        return nil
    }
}
