import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// How far a compressed (gzip, deflate) response body may inflate before the transport refuses it: a defence
/// against decompression bombs that lets ordinary bodies through.
///
/// AsyncHTTPClient's own limit is a plain ratio (25× by default) checked from the first byte, so a 2 KB repetitive
/// JSON body, which gzip shrinks 40×, was refused. Here the ratio applies only once the inflated body is past
/// ``floor``: small bodies always pass, whatever they compress to, and a bomb (gzip reaches about 1,000×) is cut
/// off a little past the floor.
public struct DecompressionLimit: Sendable, Equatable, CustomStringConvertible {
    /// The most inflated bytes per compressed byte once past ``floor``; `nil`: no limit.
    public var ratio: Int?
    /// Inflated bytes always allowed, whatever the ratio.
    public var floor: Int

    /// A limit of `ratio`× the compressed size once the body is past `floor` inflated bytes.
    public init(ratio: Int?, floor: Int = Self.standardFloor) {
        self.ratio = ratio.map { max(1, $0) }
        self.floor = max(0, floor)
    }

    /// 100× past the first 1 MiB: ten times past what real JSON, HTML and logs compress to, a tenth of a bomb's ratio.
    public static let standard = DecompressionLimit(ratio: standardRatio)
    /// No limit at all: trust the server.
    public static let unlimited = DecompressionLimit(ratio: nil)
    /// ``standard``'s ratio.
    public static let standardRatio = 100
    /// ``standard``'s floor: 1 MiB.
    public static let standardFloor = 1 << 20

    /// Whether `inflated` bytes out of `compressed` bytes read pass the limit.
    public func exceeded(compressed: Int, inflated: Int) -> Bool {
        guard let ratio, inflated > floor else { return false }
        let (allowed, overflow) = compressed.multipliedReportingOverflow(by: ratio)
        return !overflow && inflated > allowed
    }

    /// `100× the compressed size past the first 1 MiB`, or `no limit`.
    public var description: String {
        guard let ratio else { return "no limit" }
        guard floor > 0 else { return "\(ratio)× the compressed size" }
        let floorText = floor % (1 << 20) == 0 ? "\(floor >> 20) MiB" : "\(floor) bytes"
        return "\(ratio)× the compressed size past the first \(floorText)"
    }
}

/// A compressed body that inflated past a ``DecompressionLimit``.
struct DecompressionLimitExceeded: Error, CustomStringConvertible {
    let limit: DecompressionLimit

    var description: String { "the compressed response body inflates past the decompression limit (\(limit))" }
}

/// Installs the two handlers that enforce a ``DecompressionLimit`` around the decompressor AsyncHTTPClient puts in
/// each connection's pipeline (HTTP/1) or stream's (HTTP/2), which itself runs unlimited: one counts the compressed
/// body bytes going in, the other the inflated bytes coming out, and fails the request once they pass the limit.
/// They also keep a stack of codings (`gzip, gzip`) away from the decompressor (see `CompressedBytes`).
enum DecompressionGuard {
    /// `configuration` with AHC's decompression on and unlimited, and `limit` enforced by these handlers instead.
    static func apply(_ limit: DecompressionLimit, to configuration: HTTPClient.Configuration) -> HTTPClient.Configuration {
        var configuration = configuration
        configuration.decompression = .enabled(limit: .none)
        let http1 = configuration.http1_1ConnectionDebugInitializer
        configuration.http1_1ConnectionDebugInitializer = { channel in
            install(limit, on: channel).flatMap { http1?(channel) ?? channel.eventLoop.makeSucceededVoidFuture() }
        }
        let stream = configuration.http2StreamChannelDebugInitializer
        configuration.http2StreamChannelDebugInitializer = { channel in
            install(limit, on: channel).flatMap { stream?(channel) ?? channel.eventLoop.makeSucceededVoidFuture() }
        }
        return configuration
    }

    /// Puts the counters around the channel's decompressor; a pipeline without one is left alone.
    static func install(_ limit: DecompressionLimit, on channel: any Channel) -> EventLoopFuture<Void> {
        let loop = channel.eventLoop
        guard loop.inEventLoop else { return loop.flatSubmit { install(limit, on: channel) } }
        let operations = channel.pipeline.syncOperations
        guard let decompressor = try? operations.handler(type: NIOHTTPResponseDecompressor.self) else {
            return loop.makeSucceededVoidFuture()
        }
        let tally = InflationTally()
        do {
            try operations.addHandler(CompressedBytes(tally), position: .before(decompressor))
            try operations.addHandler(InflatedBytes(tally, limit: limit), position: .after(decompressor))
        } catch {
            return loop.makeFailedFuture(error)
        }
        return loop.makeSucceededVoidFuture()
    }
}

/// One response's compressed and inflated byte counts, shared by the two handlers of one pipeline (both run on its
/// event loop, and only there).
private final class InflationTally {
    var compressed = 0
    var inflated = 0
    var failed = false
    /// The head as it came, when its stack of codings was hidden from the decompressor: handed on after it.
    var originalHead: HTTPResponseHead?

    func reset() {
        compressed = 0
        inflated = 0
        failed = false
        originalHead = nil
    }
}

/// Before the decompressor: counts the body bytes as they came off the wire, and hides a stack of codings from it.
///
/// NIO's decompressor decodes by the first coding named and leaves the header as it was: `Content-Encoding: gzip,
/// gzip` came out decoded once and still labelled twice, and `deflate, gzip` was inflated by the wrong name. Such a
/// body is handed on exactly as sent instead, under its own header (what `curl` without `--compressed` does).
private final class CompressedBytes: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart
    private let tally: InflationTally

    init(_ tally: InflationTally) { self.tally = tally }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            tally.reset()
            let codings = head.headers[canonicalForm: "Content-Encoding"].filter { $0.lowercased() != "identity" }
            if codings.count > 1 {
                tally.originalHead = head
                head.headers.remove(name: "Content-Encoding")
                context.fireChannelRead(wrapInboundOut(.head(head)))
                return
            }
        case .body(let buffer): tally.compressed += buffer.readableBytes
        case .end: break
        }
        context.fireChannelRead(data)
    }
}

/// After the decompressor: counts the inflated bytes and fails the request once they pass the limit; nothing past
/// that point is handed on.
private final class InflatedBytes: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart
    private let tally: InflationTally
    private let limit: DecompressionLimit

    init(_ tally: InflationTally, limit: DecompressionLimit) {
        self.tally = tally
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .head = part, let original = tally.originalHead {
            context.fireChannelRead(wrapInboundOut(.head(original)))
            return
        }
        guard case .body(let buffer) = part else {
            if !tally.failed { context.fireChannelRead(data) }
            return
        }
        guard !tally.failed else { return }
        tally.inflated += buffer.readableBytes
        if limit.exceeded(compressed: tally.compressed, inflated: tally.inflated) {
            tally.failed = true
            context.fireErrorCaught(DecompressionLimitExceeded(limit: limit))
            return
        }
        context.fireChannelRead(data)
    }
}
