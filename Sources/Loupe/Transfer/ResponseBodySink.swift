import Foundation
import HTTPTypes

/// Where a streamed response body goes as it arrives: the file of ``Client/download(_:to:options:progressBuffering:)``,
/// standard output for `loupe send`, or a sink of your own given to
/// ``Client/execute(_:body:options:streamingBodyTo:streaming:)``.
///
/// For each attempt whose response streams, the client calls ``begin(_:httpVersion:)``, then ``write(_:)`` once per
/// chunk in order, then ``finish(byteCount:)`` when the whole body has arrived. Only one chunk is in memory at a
/// time. A sink that ``canRestart`` (a file rewritten from its start) may see another `begin` after an attempt
/// failed mid-body; one that cannot (a pipe, a terminal) never does: once its `begin` ran, a failure ends the
/// exchange with ``TransportError/Kind/deliveryInterrupted`` instead of being retried into a second copy.
public protocol ResponseBodySink: Sendable {
    /// Whether a later attempt may write the body again from the start, replacing what an earlier one wrote.
    var canRestart: Bool { get }
    /// An attempt's response was accepted for streaming; its body follows.
    func begin(_ head: HTTPResponse, httpVersion: String?) throws
    /// The next chunk of the body.
    func write(_ chunk: Data) throws
    /// The whole body arrived: `byteCount` bytes.
    func finish(byteCount: Int64) throws
}

/// How ``Client/execute(_:body:options:streamingBodyTo:streaming:)`` streams a response body.
public struct ResponseStreaming: Sendable {
    /// Which statuses stream into the sink as they arrive. The others are collected in memory (at most
    /// ``collectedLimit`` bytes) so that a middleware may still retry them, and reach the sink only when final.
    /// Leave out the statuses a retry policy retries (``RetryPolicy/retryableStatuses``) when the sink cannot
    /// restart. Default: every status.
    public var streams: @Sendable (HTTPResponse.Status) -> Bool
    /// How many leading bytes of a streamed body are kept in memory: the response's `body` and what the recorder
    /// stores, with the whole size beside it. Default 1 MiB, the recorder's default body cap.
    public var keptPrefix: Int
    /// A body longer than this fails the exchange (``TransportError/Kind/other``), before any byte is written when
    /// `Content-Length` says so; nil for no limit (the default).
    public var maxBodyBytes: Int64?
    /// How many bytes of a response that does not stream are kept; the rest is dropped. Default 1 MiB.
    public var collectedLimit: Int

    public init(
        streams: @escaping @Sendable (HTTPResponse.Status) -> Bool = { _ in true },
        keptPrefix: Int = 1 << 20,
        maxBodyBytes: Int64? = nil,
        collectedLimit: Int = 1 << 20
    ) {
        self.streams = streams
        self.keptPrefix = max(0, keptPrefix)
        self.maxBodyBytes = maxBodyBytes
        self.collectedLimit = max(0, collectedLimit)
    }
}
