import Foundation
import LoupeTrace
import NIOCore

/// An exchange frame's bytes while they are written: a plain growing buffer, copied into a `ByteBuffer` once at the
/// end. Each write is a capacity check and a copy; `ByteBuffer`'s own writes (their copy-on-write and index checks on
/// every call) were about a fifth of the frame's cost, and `uuidString`, `Double.description`,
/// `base64EncodedString()` and `String(Int)` made a `String` per value.
struct FrameBytes: TextOutputStream {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    /// Frees the bytes; the value must not be used after.
    func deallocate() {
        base.deallocate()
    }

    /// A `ByteBuffer` holding the bytes written, the frame's length patched into its first four.
    func frame() -> ByteBuffer {
        let length = UInt32(count - 4)
        base[0] = UInt8(truncatingIfNeeded: length >> 24)
        base[1] = UInt8(truncatingIfNeeded: length >> 16)
        base[2] = UInt8(truncatingIfNeeded: length >> 8)
        base[3] = UInt8(truncatingIfNeeded: length)
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        buffer.writeBytes(UnsafeRawBufferPointer(start: base, count: count))
        return buffer
    }

    /// Room for the length (patched by ``frame()``) and the message type.
    mutating func writeLengthAndType(_ type: UInt8) {
        reserve(5)
        for _ in 0..<4 { writeInteger(0) }
        writeInteger(type)
    }

    @inline(__always)
    private mutating func reserve(_ more: Int) {
        if count + more > capacity { grow(to: count + more) }
    }

    private mutating func grow(to needed: Int) {
        let larger = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    mutating func writeInteger(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    mutating func writeBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func writeStaticString(_ text: StaticString) {
        writeBytes(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func writeString(_ text: String) {
        var text = text
        text.withUTF8 { writeBytes($0) }
    }

    // TextOutputStream: how a number's `write(to:)` hands over its digits (`_writeASCII`, without a `String`).
    mutating func write(_ text: String) {
        writeString(text)
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        writeBytes(buffer)
    }

    /// Drops a trailing `.0` written after `start` (`JSONEncoder` writes `2.0` as `2`).
    mutating func dropTrailingPointZero(after start: Int) {
        if count - start >= 2, base[count - 2] == UInt8(ascii: "."), base[count - 1] == UInt8(ascii: "0") {
            count -= 2
        }
    }

    /// `value` in decimal, as `String(value)` writes it.
    mutating func writeDecimal(_ value: Int) {
        reserve(20)
        if value < 0 { writeInteger(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var index = count + digits
        count = index
        repeat {
            index -= 1
            base[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }

    /// `id` as `uuidString` writes it.
    mutating func writeUUID(_ id: UUID) {
        reserve(36)
        count += StoredUUID.format(id, into: UnsafeMutableBufferPointer(start: base + count, count: 36))
    }

    /// `data` in quotes, in base64 as `base64EncodedString()` writes it (the standard alphabet, padded, one line).
    mutating func writeBase64(_ data: Data) {
        let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        let table = alphabet.utf8Start
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            reserve(2 + (bytes.count + 2) / 3 * 4)
            var out = base + count
            out.pointee = UInt8(ascii: "\"")
            out += 1
            var index = 0
            while index + 3 <= bytes.count {
                let triple = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                out[0] = table[Int(triple >> 18)]
                out[1] = table[Int(triple >> 12 & 0x3F)]
                out[2] = table[Int(triple >> 6 & 0x3F)]
                out[3] = table[Int(triple & 0x3F)]
                out += 4
                index += 3
            }
            let left = bytes.count - index
            if left > 0 {
                let first = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                out[0] = table[Int(first >> 18)]
                out[1] = table[Int(first >> 12 & 0x3F)]
                out[2] = left == 2 ? table[Int(first >> 6 & 0x3F)] : UInt8(ascii: "=")
                out[3] = UInt8(ascii: "=")
                out += 4
            }
            out.pointee = UInt8(ascii: "\"")
            out += 1
            count = out - base
        }
    }
}
