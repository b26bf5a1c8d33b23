import Foundation
import HTTPTypes

/// The request as it went on the wire, when the transport changed it after the attempt was recorded: a rule's
/// rewrite (new base URL, a header set or removed) or an edit made at a breakpoint. ``AttemptRecord/request`` keeps
/// the request the middleware handed down, which is what the app asked for ("before the rule").
///
/// A class, so that an attempt nothing rewrote (nearly all of them) carries one `nil` pointer and no copy of a
/// second request: the record is copied for every observer call.
public final class WireRequest: Sendable, Hashable {
    /// The head that was sent.
    public let head: HTTPRequest
    /// The body that was sent, when it differs from the one the app gave; `nil` when the body was not changed.
    public let body: Optional<Data>

    /// What was sent: `head`, and `body` only when it differs from the app's body.
    public init(head: HTTPRequest, body: Data? = nil) {
        self.head = head
        self.body = body
    }

    public static func == (lhs: WireRequest, rhs: WireRequest) -> Bool { lhs.head == rhs.head && lhs.body == rhs.body }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(head)
        hasher.combine(body)
    }
}
