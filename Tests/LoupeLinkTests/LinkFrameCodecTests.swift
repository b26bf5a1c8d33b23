import Foundation
import Loupe
import LoupeTrace
import NIOCore
import Testing
@testable import LoupeLink

/// The wire format, byte for byte as Documentation/LinkProtocol.md shows it, and every malformed input refused with
/// its own reason before more than the 4 length bytes are looked at.
@Suite struct LinkFrameCodecTests {
    static func hex(_ buffer: ByteBuffer) -> String {
        buffer.readableBytesView.map { String(format: "%02x", $0) }.joined()
    }

    static func buffer(hex: String) -> ByteBuffer {
        let digits = Array(hex.utf8)
        return ByteBuffer(bytes: stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        })
    }

    static let hello = LinkHello(app: "demo", executable: "/usr/bin/demo", host: "laptop", pid: 42,
                                 loupe: "0.1.0", secret: "s3cr3t-s3cr3t-s3cr3t")
    /// The documented example (Documentation/LinkProtocol.md, "A byte-level example").
    static let helloBytes = "00000082017b22617070223a2264656d6f222c2265786563757461626c65223a222f7573722f62696e2f64656d6f222c22686f7374223a226c6170746f70222c226c6f757065223a22302e312e30222c22706964223a34322c2270726f746f636f6c223a322c22736563726574223a227333637233742d7333637233742d733363723374227d"

    @Test func goldenFrames() throws {
        #expect(Self.hex(try LinkFrameCodec.encode(.hello(Self.hello))) == Self.helloBytes)
        #expect(Self.hex(try LinkFrameCodec.encode(.ack(3))) == "00000009420000000000000003")
        #expect(Self.hex(try LinkFrameCodec.encode(.drops(7))) == "0000000e037b2264726f70706564223a377d")
        #expect(Self.hex(try LinkFrameCodec.encode(.refuse("protocol 1, this is 2")))
            == "000000164370726f746f636f6c20312c20746869732069732032")
        var bytes = Self.buffer(hex: Self.helloBytes + "00000009420000000000000003")
        #expect(try LinkFrameCodec.next(from: &bytes) == .hello(Self.hello))
        #expect(try LinkFrameCodec.next(from: &bytes) == .ack(3))
        #expect(bytes.readableBytes == 0)
    }

    static let exchange = TraceExchange(
        id: UUID(uuidString: "00000000-0000-7000-8000-000000000001")!, operation: "get-user", method: "GET",
        url: "https://api.test/users/1", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
        endedAt: Date(timeIntervalSince1970: 1_700_000_000.25), outcome: .success, status: 200,
        requestHeaders: [TraceHeader(name: "authorization", value: "[REDACTED]")],
        responseBody: TraceBody(data: Data("{}".utf8), size: 2, isTruncated: false),
        attempts: [TraceAttempt(number: 1, startedAt: Date(timeIntervalSince1970: 1_700_000_000), status: 200)])

    @Test func anExchangeIsTheRecordersStoredFormInJSON() throws {
        let frame = try LinkFrameCodec.encode(.exchange(Self.exchange))
        #expect(frame.getInteger(at: 4, as: UInt8.self) == 0x02)
        let json = String(decoding: frame.readableBytesView.dropFirst(5), as: UTF8.self)
        #expect(json == Self.exchangeJSON)
        var copy = frame
        #expect(try LinkFrameCodec.next(from: &copy) == .exchange(Self.exchange))
    }

    static let exchangeJSON = #"{"attempts":[{"number":1,"startedAt":1700000000,"status":200}],"endedAt":1700000000.25,"events":[],"id":"00000000-0000-7000-8000-000000000001","method":"GET","operation":"get-user","outcome":"success","requestHeaders":[{"name":"authorization","value":"[REDACTED]"}],"responseBody":{"data":"e30=","isTruncated":false,"size":2},"responseHeaders":[],"startedAt":1700000000,"status":200,"url":"https://api.test/users/1"}"#

    @Test func aPartialFrameWaitsForTheRest() throws {
        let whole = try LinkFrameCodec.encode(.ack(1))
        for cut in 0..<whole.readableBytes {
            var part = whole.getSlice(at: 0, length: cut)!
            #expect(try LinkFrameCodec.next(from: &part) == nil)
            #expect(part.readableBytes == cut, "nothing consumed from an incomplete frame")
        }
    }

    @Test func anOversizedLengthIsRefusedFromItsFourBytesAlone() {
        var huge = Self.buffer(hex: "ffffffff")
        #expect(throws: LinkProtocolError.frameTooLarge(UInt32.max, limit: LinkProtocol.maxFrameLength)) { try LinkFrameCodec.next(from: &huge) }
        var justOver = ByteBuffer()
        justOver.writeInteger(UInt32(LinkProtocol.maxFrameLength + 1))
        #expect(throws: LinkProtocolError.frameTooLarge(UInt32(LinkProtocol.maxFrameLength + 1), limit: LinkProtocol.maxFrameLength)) {
            try LinkFrameCodec.next(from: &justOver)
        }
        var empty = Self.buffer(hex: "00000000")
        #expect(throws: LinkProtocolError.emptyFrame) { try LinkFrameCodec.next(from: &empty) }
    }

    @Test func unknownTypesAndBadPayloadsAreRefused() {
        var reserved = Self.buffer(hex: "0000000145")
        #expect(throws: LinkProtocolError.unknownType(0x45)) { try LinkFrameCodec.next(from: &reserved) }
        var garbage = ByteBuffer(bytes: Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(throws: LinkProtocolError.frameTooLarge(0x4745_5420, limit: 65_536)) {
            try LinkFrameCodec.next(from: &garbage, limit: LinkProtocol.maxFirstFrameLength)
        }
        var bigHello = Self.buffer(hex: "00010001")
        #expect(throws: LinkProtocolError.frameTooLarge(65_537, limit: 65_536)) {
            try LinkFrameCodec.next(from: &bigHello, limit: LinkProtocol.maxFirstFrameLength)
        }
        var badJSON = Self.buffer(hex: "00000003017b7d")  // hello "{}"
        #expect(throws: LinkProtocolError.badPayload(.hello)) { try LinkFrameCodec.next(from: &badJSON) }
        var shortAck = Self.buffer(hex: "000000024201")
        #expect(throws: LinkProtocolError.badPayload(.ack)) { try LinkFrameCodec.next(from: &shortAck) }
        var negativeDrops = LinkFrameCodec.frame(.drops, payload: Array(#"{"dropped":-1}"#.utf8))
        #expect(throws: LinkProtocolError.badPayload(.drops)) { try LinkFrameCodec.next(from: &negativeDrops) }
    }

    @Test func typesAreSplitByDirection() {
        for type in LinkMessageType.allCases {
            let toViewer = [LinkMessageType.hello, .exchange, .drops, .ruleState].contains(type)
            #expect((type.rawValue < 0x40) == toViewer || type == .refuse)
        }
    }
}
