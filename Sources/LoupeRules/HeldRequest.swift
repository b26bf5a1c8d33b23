import Foundation
import HTTPTypes
import LoupeTrace

/// A request (or its response) a breakpoint holds until the viewer decides, or the app's longest hold passes.
public struct HeldRequest: Sendable, Hashable, Identifiable, Codable {
    public enum Phase: String, Sendable, Hashable, Codable { case request, response }

    /// This hold's own id (an exchange can be held twice: request, then response).
    public var id: UUID
    public var exchangeID: UUID
    public var rule: String
    public var phase: Phase
    public var operation: String
    public var method: String
    public var url: String
    public var headers: [TraceHeader]
    public var body: Data?
    /// The response's status, when the response is held.
    public var status: Int?
    public var since: Date

    public init(id: UUID = UUID(), exchangeID: UUID, rule: String, phase: Phase, operation: String, method: String, url: String,
                headers: [TraceHeader], body: Data?, status: Int? = nil, since: Date) {
        self.id = id
        self.exchangeID = exchangeID
        self.rule = rule
        self.phase = phase
        self.operation = operation
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.status = status
        self.since = since
    }
}

/// What the viewer decided for a held request.
public enum HoldDecision: Sendable, Hashable {
    /// Go on unchanged.
    case resume
    /// Go on with this method, URL, headers and body (a held request) or status, headers and body (a response).
    case edit(HoldEdit)
    /// Fail the exchange at stage `abortedAtBreakpoint`.
    case abort
}

/// An edited request or response: fields left `nil` stay as they were.
public struct HoldEdit: Sendable, Hashable, Codable {
    public var method: String?
    public var url: String?
    public var status: Int?
    public var headers: [TraceHeader]?
    public var body: Data?

    public init(method: String? = nil, url: String? = nil, status: Int? = nil, headers: [TraceHeader]? = nil, body: Data? = nil) {
        self.method = method
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }
}
