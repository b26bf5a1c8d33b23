import Foundation
import HTTPTypes

/// One try on the wire, as the client saw it: built once by the client, for every attempt, and handed unchanged to
/// observers (``AttemptStarted/record``, ``AttemptFinished/record``, ``ExchangeFinished/attempts``), to the caller
/// (``ClientResponse/attempts``) and to the recorder, which stores it as a `TraceAttempt`.
///
/// Its optionals are spelled `Optional<…>` (the same types as `T?`), so its initializer builds it in place: a `T?`
/// property's implicit `nil` made the optimizer build it in a temporary and copy it out.
public struct AttemptRecord: Sendable, Hashable {
    /// 1 for the first try of an exchange.
    public var number: Int
    /// The request head as the transport was given it, after every middleware changed it.
    public var request: HTTPRequest
    /// When the attempt started, and the milestones the transport marked; `end` is set once it finished.
    public var timings: AttemptTimings
    /// What middleware said about this attempt (retry reason and delay, breaker state at dispatch, notes).
    public var annotations: AttemptAnnotations
    /// The response head, when one arrived (with a transport error: the head of the part that arrived).
    public var response: Optional<HTTPResponse>
    /// A description of the error, when the attempt failed.
    public var error: Optional<String>
    /// What went on the wire when the transport changed ``request`` (a rule's rewrite, an edit at a breakpoint);
    /// `nil` when it sent ``request`` as it was.
    public var wire: Optional<WireRequest>

    public init(
        number: Int, request: HTTPRequest, timings: AttemptTimings, annotations: AttemptAnnotations = AttemptAnnotations(),
        response: HTTPResponse? = nil, error: String? = nil, wire: WireRequest? = nil
    ) {
        self.number = number
        self.request = request
        self.timings = timings
        self.annotations = annotations
        self.response = response
        self.error = error
        self.wire = wire
    }

    /// The status code, when a response (or the head of a partial one) arrived.
    public var status: Int? { response?.status.code }

    /// The head that went on the wire: ``wire``'s when the transport changed it, else ``request``.
    public var sentRequest: HTTPRequest { wire?.head ?? request }
}

/// What the caller learns about one attempt of an exchange: the client's one record of it.
public typealias AttemptMetrics = AttemptRecord
