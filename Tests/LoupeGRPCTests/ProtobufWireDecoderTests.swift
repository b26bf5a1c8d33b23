import Foundation
import LoupeProtobuf
@testable import LoupeTestSupport
import Testing

/// The wire-format decoder against `protoc --decode_raw`: the committed corpus (Fixtures/wire-corpus.json, made by
/// make-wire-corpus.py with grpcio-tools' protoc) always, and protoc itself on generated messages when
/// LOUPE_CI_PYTHON is set.
struct ProtobufWireDecoderTests {
    struct Entry: Decodable {
        var hex: String
        var text: String?
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    static let corpus: [Entry] = {
        let url = GRPCPeer.root.appendingPathComponent("Tests/LoupeGRPCTests/Fixtures/wire-corpus.json")
        return (try? JSONDecoder().decode([Entry].self, from: Data(contentsOf: url))) ?? []
    }()

    @Test func corpusDecodesAsProtocDoes() throws {
        #expect(Self.corpus.count >= 20)
        for entry in Self.corpus {
            #expect(ProtobufText.decodeRaw(Self.bytes(entry.hex)) == entry.text, "\(entry.hex)")
        }
    }

    @Test func negativeVarintsArePackedAndGroupsAreRead() throws {
        let negative = try #require(ProtobufWireDecoder.decode(Self.bytes("08ffffffffffffffffff01")))
        #expect(negative == [ProtobufField(number: 1, value: .varint(UInt64.max))])
        let group = try #require(ProtobufWireDecoder.decode(Self.bytes("3b08013c")))
        #expect(group == [ProtobufField(number: 7, value: .group([ProtobufField(number: 1, value: .varint(1))]))])
        // An eleven-byte varint, a length past the end: not a message.
        #expect(ProtobufWireDecoder.decode(Self.bytes("08ffffffffffffffffffff01")) == nil)
        #expect(ProtobufWireDecoder.decode(Self.bytes("12056162")) == nil)
    }

    @Test func deepGroupsAreRefusedNotRecursedWithoutEnd() {
        // 100,000 group starts: refused at the group depth limit, with no stack overflow.
        let open = [UInt8](repeating: 0x0B, count: 100_000)
        #expect(ProtobufWireDecoder.decode(open) == nil)
    }

    @Test(.enabled(if: GRPCPeer.available, GRPCPeer.skipReason))
    func generatedMessagesDecodeAsProtocDoes() throws {
        let python = try #require(ProcessInfo.processInfo.environment["LOUPE_CI_PYTHON"])
        var generator = SplitMix(seed: 47)
        for _ in 0..<30 {
            let message = Self.randomMessage(&generator, depth: 3)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-m", "grpc_tools.protoc", "--decode_raw"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data(message))
            try input.fileHandleForWriting.close()
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let expected = process.terminationStatus == 0 ? String(decoding: printed, as: UTF8.self) : nil
            #expect(ProtobufText.decodeRaw(message) == expected, "\(message)")
        }
    }

    /// A message of random fields of every wire type, nested to `depth`, sometimes with a stray byte.
    static func randomMessage(_ generator: inout SplitMix, depth: Int) -> [UInt8] {
        var out: [UInt8] = []
        for _ in 0..<Int(generator.next() % 6) {
            let number = UInt64(generator.next() % 40 + 1)
            switch generator.next() % (depth > 0 ? 6 : 5) {
            case 0: out += varint(number << 3) + varint(generator.next() >> (generator.next() % 64))
            case 1: out += varint(number << 3 | 1) + (0..<8).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            case 2: out += varint(number << 3 | 5) + (0..<4).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            case 3:
                let payload = (0..<Int(generator.next() % 12)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                out += varint(number << 3 | 2) + varint(UInt64(payload.count)) + payload
            case 4: out += varint(number << 3 | 3) + varint(1 << 3) + varint(5) + varint(number << 3 | 4)
            default:
                let inner = randomMessage(&generator, depth: depth - 1)
                out += varint(number << 3 | 2) + varint(UInt64(inner.count)) + inner
            }
        }
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

/// A seeded generator, so a failing message can be made again.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
