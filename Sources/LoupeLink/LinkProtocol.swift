import Foundation
import LoupeTrace
import NIOCore

/// The live link's wire protocol (Documentation/LinkProtocol.md): frames inside TLS.
///
/// Every frame is a 4-byte big-endian length, then that many bytes: a 1-byte message type and its payload. The
/// length counts the type byte, so it is 1 at least, and at most ``maxFrameLength``. The frame layout and the
/// `hello`, `welcome` and `refuse` messages never change between protocol versions, so a peer of any version can
/// read a refusal that says "protocol N, this is M".
package enum LinkProtocol {
    /// The version this build speaks.
    package static let version = 2
    /// The largest frame length accepted (type byte and payload): 8 MiB, room for an exchange with two 1 MiB
    /// bodies in base64. A longer length is refused before any of its bytes are buffered.
    package static let maxFrameLength = 8 << 20
    /// The largest first frame of a connection (the hello, or the welcome): 64 KiB, so a peer that has not proved
    /// the secret costs the listener at most that much memory.
    package static let maxFirstFrameLength = 64 << 10
    /// How long closing a TLS connection waits for the peer's close_notify, on either side (NIOSSL's default is 5 s).
    /// At exit, a listener that never answered cost `loupe send --link` that much after its drain; on the listener, a
    /// peer dropped for its silence kept its socket that long, and its timed-out close raised an error of its own
    /// (issue 44).
    static let tlsShutdownTimeout = TimeAmount.milliseconds(300)
    /// Loupe's own version, sent in the hello.
    package static let loupeVersion = LoupeVersion.current

    /// Dates as seconds since 1970, keys sorted: the same exchange is the same bytes (the golden test relies on it).
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

/// A message type: the byte after a frame's length. `0x01…0x3F` go from the app to the viewer, `0x41…0x7F` from
/// the viewer to the app; the types not listed are reserved. `0x00`, `0x40` and `0x80…0xFF` are never used.
/// Rules (`0x04`, `0x44`) travel only between peers whose hello and welcome both said `"rules":true`, so
/// protocol 1 peers without rules never see them (LinkRulesMessages.swift).
package enum LinkMessageType: UInt8, Sendable, CaseIterable {
    /// App → viewer, first: JSON ``LinkHello``.
    case hello = 0x01
    /// App → viewer: one recorded exchange, JSON in the recorder's stored form.
    case exchange = 0x02
    /// App → viewer: JSON `{"dropped":N}`, exchanges the app's link dropped since it started.
    case drops = 0x03
    /// App → viewer: JSON ``LinkRuleState``, the app's rules, hit counts and held requests (after each change).
    case ruleState = 0x04
    /// Viewer → app, after a good hello: JSON ``LinkWelcome``.
    case welcome = 0x41
    /// Viewer → app: 8-byte big-endian count of exchanges stored since the previous ack.
    case ack = 0x42
    /// Either way, then the connection closes: a UTF-8 reason, one line.
    case refuse = 0x43
    /// Viewer → app: JSON ``LinkRuleCommand`` (set, remove, enable or disable rules; decide on a held request).
    case rules = 0x44
}

/// One decoded frame.
package enum LinkFrame: Sendable, Equatable {
    case hello(LinkHello)
    case exchange(TraceExchange)
    case drops(LinkCount)
    case welcome(LinkWelcome)
    case ack(LinkCount)
    case refuse(String)
    case ruleState(LinkRuleState)
    case rules(LinkRuleCommand)
}

/// The app's first message: who it is, and the secret from its link string.
public struct LinkHello: Codable, Sendable, Equatable {
    public var `protocol`: Int
    public var app: String
    public var executable: String
    public var host: String
    public var pid: Int
    public var loupe: String
    public var secret: String
    /// True when the app takes rules from the viewer (it opted in); absent otherwise and from older apps.
    public var rules: Bool?

    package init(protocol: Int = LinkProtocol.version, app: String, executable: String, host: String, pid: Int,
                loupe: String = LinkProtocol.loupeVersion, secret: String) {
        self.protocol = `protocol`
        self.app = app
        self.executable = executable
        self.host = host
        self.pid = pid
        self.loupe = loupe
        self.secret = secret
    }

    /// This process: its name, executable path, host name and id.
    package static func thisProcess(secret: String, app: String? = nil) -> LinkHello {
        let info = ProcessInfo.processInfo
        return LinkHello(app: app ?? info.processName, executable: CommandLine.arguments.first ?? info.processName,
                         host: localHostName(), pid: Int(info.processIdentifier), secret: secret)
    }

    /// `gethostname`: the name this machine calls itself, with no DNS lookup (this runs on an event loop).
    static func localHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The viewer's answer to a good hello.
package struct LinkWelcome: Codable, Sendable, Equatable {
    package var `protocol`: Int
    package var loupe: String
    /// True when the viewer takes the app's rule state (answering a hello that said `rules`).
    package var rules: Bool?

    package init(protocol: Int = LinkProtocol.version, loupe: String = LinkProtocol.loupeVersion) {
        self.protocol = `protocol`
        self.loupe = loupe
    }
}

/// Why a peer's bytes were refused; each is the one line both sides print.
package enum LinkProtocolError: Error, Equatable, CustomStringConvertible {
    case frameTooLarge(UInt32, limit: Int)
    case emptyFrame
    case unknownType(UInt8)
    case wrongDirection(LinkMessageType)
    case badPayload(LinkMessageType)
    case unexpected(LinkMessageType, expected: String)

    package var description: String {
        switch self {
        case .frameTooLarge(let length, let limit):
            "a frame of \(length) bytes is over the limit of \(limit)"
        case .emptyFrame: "a frame of length 0"
        case .unknownType(let type): "unknown message type 0x\(String(type, radix: 16)): not a Loupe link peer?"
        case .wrongDirection(let type): "\(type.withArticle) message from the wrong side"
        case .badPayload(let type): "a malformed \(type) message"
        case .unexpected(let type, let expected): "\(type.withArticle) message where \(expected) was expected"
        }
    }
}

/// Encodes frames into bytes and reads them back: the whole codec, with no I/O, shared by both sides.
package struct LinkFrameCodec: Sendable {
    package init() {}

    /// The frame for `type` with `payload`.
    package static func frame(_ type: LinkMessageType, payload: some Collection<UInt8>) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(5 + payload.count)
        buffer.writeInteger(UInt32(1 + payload.count))
        buffer.writeInteger(type.rawValue)
        buffer.writeBytes(payload)
        return buffer
    }

    /// The bytes of `frame`. Fails only for an exchange that JSON cannot encode (a non-finite number).
    package static func encode(_ frame: LinkFrame) throws -> ByteBuffer {
        // Made only for the messages that need one: not for an exchange (written by hand) or an ack.
        var encoder: JSONEncoder { LinkProtocol.makeEncoder() }
        switch frame {
        case .hello(let hello): return Self.frame(.hello, payload: try encoder.encode(hello))
        case .exchange(let exchange):
            // The same bytes as `JSONEncoder` would write, without its cost.
            guard let frame = LinkExchangeJSON.frame(exchange) else {
                return Self.frame(.exchange, payload: try encoder.encode(exchange))  // throws as before
            }
            return frame
        case .drops(let count): return Self.frame(.drops, payload: Array("{\"dropped\":\(count)}".utf8))
        case .welcome(let welcome): return Self.frame(.welcome, payload: try encoder.encode(welcome))
        case .ack(let count):
            var payload = ByteBuffer()
            payload.writeInteger(UInt64(count.value))
            return Self.frame(.ack, payload: payload.readableBytesView)
        case .refuse(let reason): return Self.frame(.refuse, payload: Array(reason.utf8.prefix(1024)))
        case .ruleState(let state): return Self.frame(.ruleState, payload: try encoder.encode(state))
        case .rules(let command): return Self.frame(.rules, payload: try encoder.encode(command))
        }
    }

    /// The length of the next frame in `buffer` once its 4 length bytes are there, checked against the limit
    /// before anything else is buffered; nil while fewer than 4 bytes are readable.
    static func frameLength(in buffer: ByteBuffer, limit: Int) throws(LinkProtocolError) -> Int? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return nil }
        guard length > 0 else { throw .emptyFrame }
        guard length <= limit else { throw .frameTooLarge(length, limit: limit) }
        return Int(length)
    }

    /// Takes the next whole frame off `buffer`, nil when it is not all there yet; a length over `limit` is refused.
    package static func next(from buffer: inout ByteBuffer, limit: Int = LinkProtocol.maxFrameLength)
        throws(LinkProtocolError) -> LinkFrame?
    {
        guard let length = try frameLength(in: buffer, limit: limit), buffer.readableBytes >= 4 + length else { return nil }
        buffer.moveReaderIndex(forwardBy: 4)
        let rawType: UInt8 = buffer.readInteger()!
        let payload = buffer.readSlice(length: length - 1)!
        guard let type = LinkMessageType(rawValue: rawType) else { throw .unknownType(rawType) }
        return try decode(type, payload: payload)
    }

    static func decode(_ type: LinkMessageType, payload: ByteBuffer) throws(LinkProtocolError) -> LinkFrame {
        // Made only for the frames that need them: an exchange is read by hand.
        var decoder: JSONDecoder { LinkProtocol.makeDecoder() }
        var bytes: Data { Data(payload.readableBytesView) }
        do {
            switch type {
            case .hello: return .hello(try decoder.decode(LinkHello.self, from: bytes))
            case .exchange:
                // The form apps write, read by hand; anything else is `JSONDecoder`'s, which reads or refuses it
                // as it always did.
                if let exchange = payload.withUnsafeReadableBytes(LinkExchangeReader.exchange) { return .exchange(exchange) }
                return .exchange(try decoder.decode(TraceExchange.self, from: bytes))
            case .drops:
                // Any JSON integer reads (a larger one fails as a bad payload); the range is ``LinkCount``'s.
                let number = try decoder.decode([String: Int64].self, from: bytes)["dropped"]
                guard let number, let count = LinkCount(number) else { throw LinkProtocolError.badPayload(type) }
                return .drops(count)
            case .welcome: return .welcome(try decoder.decode(LinkWelcome.self, from: bytes))
            case .ack:
                guard payload.readableBytes == 8, let number = payload.getInteger(at: payload.readerIndex, as: UInt64.self),
                      let count = LinkCount(number)
                else { throw LinkProtocolError.badPayload(type) }
                return .ack(count)
            case .refuse:
                return .refuse(String(decoding: payload.readableBytesView.prefix(1024), as: UTF8.self))
            case .ruleState: return .ruleState(try decoder.decode(LinkRuleState.self, from: bytes))
            case .rules: return .rules(try decoder.decode(LinkRuleCommand.self, from: bytes))
            }
        } catch let error as LinkProtocolError {
            throw error
        } catch {
            throw .badPayload(type)
        }
    }
}

extension LinkMessageType: CustomStringConvertible {
    /// `a hello`, `an ack`.
    var withArticle: String {
        switch self {
        case .ack, .exchange: "an \(description)"
        default: "a \(description)"
        }
    }

    package var description: String {
        switch self {
        case .hello: "hello"
        case .exchange: "exchange"
        case .drops: "drops"
        case .welcome: "welcome"
        case .ack: "ack"
        case .refuse: "refuse"
        case .ruleState: "rule state"
        case .rules: "rules"
        }
    }
}

/// NIO's decoder over ``LinkFrameCodec``: refuses an oversized length as soon as its 4 bytes arrive; the first
/// frame of a connection may be ``LinkProtocol/maxFirstFrameLength`` long at most.
final class LinkFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = LinkFrame

    private var limit = LinkProtocol.maxFirstFrameLength

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try LinkFrameCodec.next(from: &buffer, limit: limit) else { return .needMoreData }
        limit = LinkProtocol.maxFrameLength
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A truncated frame at the end is dropped with the connection; whole frames still count.
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
