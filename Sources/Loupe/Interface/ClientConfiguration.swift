import Foundation
import HTTPTypes

/// Settings shared by every request of a ``Client``; time, clock and ids are injectable for tests.
public struct ClientConfiguration: Sendable {
    /// Header fields every request carries unless the endpoint sets them.
    public var defaultHeaders: HTTPFields = [.userAgent: "Loupe/0.1"]
    /// Which statuses `send` accepts; others throw ``ClientError`` at the validation stage.
    public var acceptableStatus: @Sendable (HTTPResponse.Status) -> Bool = { $0.kind == .successful }
    /// Attempt timeout when the endpoint sets none; `nil` leaves it to the transport.
    public var timeout: Duration?
    /// Decodes JSON responses.
    public var decoder = JSONDecoder()
    /// Encodes JSON bodies.
    public var encoder = JSONEncoder()
    /// The clock middleware use for delays.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// Wall-clock time for recorded timestamps.
    public var now: @Sendable () -> Date = { Date() }
    /// Makes exchange ids.
    public var makeID: @Sendable () -> UUID = { ExchangeID.make() }

    public init() {}
}

/// Per-call options for requests that are not described by an ``Endpoint`` (the CLI, replay).
public struct RequestOptions: Sendable {
    /// The operation name recorded for this exchange.
    public var operation: String?
    /// Attempt timeout.
    public var timeout: Duration?
    /// The recorded exchange this request replays.
    public var replayOf: UUID?
    /// The stream the exchange carries after its head (set by ``Client/events(_:options:stream:)`` and
    /// ``Client/webSocket(_:options:)``), so the recorder keeps its messages.
    public var stream: ExchangeStreamKind?

    public init(operation: String? = nil, timeout: Duration? = nil, replayOf: UUID? = nil, stream: ExchangeStreamKind? = nil) {
        self.operation = operation
        self.timeout = timeout
        self.replayOf = replayOf
        self.stream = stream
    }
}
