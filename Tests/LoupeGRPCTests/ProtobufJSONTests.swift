import Foundation
import LoupeProtobuf
@testable import LoupeTestSupport
import Testing

/// Messages decoded by name from a descriptor set, against protobuf's own JSON printer: Fixtures/json-corpus.json
/// (made by make-json-corpus.py from loupe_shapes.proto: `json_format.MessageToJson` and `protoc --decode`), and
/// descriptor sets that are not what they claim.
struct ProtobufJSONTests {
    struct Entry: Decodable {
        var type: String
        var hex: String
        var text: String
    }

    static let fixtures = GRPCPeer.root.appendingPathComponent("Tests/LoupeGRPCTests/Fixtures")

    static func set() throws -> ProtobufDescriptorSet {
        try ProtobufDescriptorSet(bytes: Data(contentsOf: fixtures.appendingPathComponent("shapes.pb")))
    }

    /// The corpus's entries with their expected JSON as parsed objects (numbers compared by value).
    static func corpus() throws -> [(Entry, Any)] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("json-corpus.json"))
        let entries = try JSONDecoder().decode([Entry].self, from: data)
        let raw = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return zip(entries, raw).map { ($0, $1["json"]!) }
    }

    @Test func corpusDecodesAsProtobufsJSONPrinter() throws {
        let set = try Self.set()
        let corpus = try Self.corpus()
        #expect(corpus.count >= 14)
        for (entry, expected) in corpus {
            let bytes = ProtobufWireDecoderTests.bytes(entry.hex)
            let decoded = try #require(ProtobufJSON.decode(bytes, type: entry.type, in: set), "\(entry.type) \(entry.hex)")
            for pretty in [false, true] {
                let text = decoded.text(pretty: pretty)
                let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
                #expect((parsed as! NSObject).isEqual(expected as! NSObject), "\(entry.type) \(entry.hex):\n\(text)\nexpected\n\(expected)")
            }
            // What `show --json` embeds is the same JSON.
            let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(decoded), options: [.fragmentsAllowed])
            #expect((encoded as! NSObject).isEqual(expected as! NSObject), "\(entry.type) \(entry.hex) encoded")
        }
    }

    @Test func methodsNameTheirRequestAndResponseTypes() throws {
        let set = try Self.set()
        let place = try #require(set.method("/loupe.shapes.Shop/Place"))
        #expect(place.input == "loupe.shapes.Order" && place.output == "loupe.shapes.Known" && place.isUnary)
        #expect(set.method("loupe.shapes.Shop/Watch")?.serverStreaming == true)
        #expect(set.method("loupe.shapes.Shop/Nope") == nil)
        // An order with one field, decoded as the request; the same bytes are no Known (field 1 is a Timestamp).
        let order: [UInt8] = [0x0A, 0x03, 0x41, 0x2D, 0x31]
        #expect(ProtobufJSON.decode(order, method: "loupe.shapes.Shop/Place", request: true, in: set)?.text()
            == #"{"orderId":"A-1"}"#)
        #expect(ProtobufJSON.decode(order, method: "loupe.shapes.Shop/Place", request: false, in: set) == nil)
        #expect(ProtobufJSON.decode(order, method: "loupe.shapes.Shop/Nope", request: true, in: set) == nil)
    }

    @Test func hostileMessagesAreRefusedNotCrashedOn() throws {
        let set = try Self.set()
        var generator = SplitMix(seed: 4_7_285)
        let types = ["loupe.shapes.Scalars", "loupe.shapes.Order", "loupe.shapes.Known", "google.protobuf.Struct"]
        for _ in 0..<2_000 {
            let message = ProtobufWireDecoderTests.randomMessage(&generator, depth: 3)
            for type in types { _ = ProtobufJSON.decode(message, type: type, in: set)?.text() }
        }
        // A message nested deeper than protobuf's parsers allow: nil, with no stack overflow.
        var deep: [UInt8] = [0x0A, 0x01, 0x78]
        for _ in 0..<10_000 { deep = [0x6A] + ProtobufWireDecoderTests.varint(UInt64(deep.count)) + deep }
        #expect(ProtobufJSON.decode(deep, type: "loupe.shapes.Order", in: set) == nil)
        // A string that is not UTF-8 is not a message of this type.
        #expect(ProtobufJSON.decode([0x4A, 0x01, 0xFF], type: "loupe.shapes.Scalars", in: set) == nil)
        #expect(ProtobufJSON.decode([0x08], type: "loupe.shapes.Scalars", in: set) == nil)
    }

    @Test func hostileDescriptorSetsAreOneSentence() throws {
        func refusal(_ bytes: [UInt8]) -> String? {
            do {
                _ = try ProtobufDescriptorSet(bytes: bytes)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal([]) == "not a FileDescriptorSet (it has no files)")
        #expect(refusal(Array("hello, world".utf8)) == "not a FileDescriptorSet (not protobuf at all)")
        let good = try [UInt8](Data(contentsOf: Self.fixtures.appendingPathComponent("shapes.pb")))
        #expect(refusal(Array(good.dropLast(3))) != nil)
        // A field naming a type the set does not have (a set made without --include_imports).
        func ld(_ number: UInt64, _ payload: [UInt8]) -> [UInt8] {
            ProtobufWireDecoderTests.varint(number << 3 | 2) + ProtobufWireDecoderTests.varint(UInt64(payload.count)) + payload
        }
        let field = ld(1, Array("b".utf8)) + [0x18, 0x01, 0x28, 0x0B] + ld(6, Array(".x.Y".utf8))
        let file = ld(1, Array("a.proto".utf8)) + ld(4, ld(1, Array("A".utf8)) + ld(2, field))
        #expect(refusal(ld(1, file)) == "A.b names x.Y, which the set does not define (made without --include_imports?)")
        // Types nested past the limit.
        var message = ld(1, Array("M".utf8))
        for _ in 0..<200 { message = ld(1, Array("M".utf8)) + ld(3, message) }
        #expect(refusal(ld(1, ld(1, Array("a.proto".utf8)) + ld(4, message)))
            == "a.proto: message types nested more than 64 deep")
        // A field number out of range.
        let badNumber = ld(1, Array("b".utf8)) + [0x18, 0x00, 0x28, 0x05]
        #expect(refusal(ld(1, ld(1, Array("a.proto".utf8)) + ld(4, ld(1, Array("A".utf8)) + ld(2, badNumber))))
            == "A.b has number 0, outside 1…536870911")
        // Mutated sets: refused or read, never a crash.
        var generator = SplitMix(seed: 285)
        for _ in 0..<500 {
            var mutated = good
            for _ in 0..<Int(generator.next() % 4 + 1) {
                mutated[Int(generator.next() % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            if let set = try? ProtobufDescriptorSet(bytes: mutated) {
                _ = ProtobufJSON.decode(ProtobufWireDecoderTests.bytes("0a03412d31"), type: "loupe.shapes.Order", in: set)
            }
        }
    }
}
