import Foundation
import HTTPTypes
import Loupe
import LoupeTrace

/// Applies a ``RuleBook``'s rules to every attempt, wrapping the real transport.
///
/// **Where it sits, and why.** It is the transport the client is given, so it runs below every middleware:
/// inside retry, the circuit breaker, throttling and authentication, once per attempt. A fault therefore reaches
/// the resilience stack exactly as the real failure would (a 503 is retried and counted by the breaker, a reset is
/// a ``TransportError``), and rehearsing an outage shows real retries and a real breaker opening on screens 3
/// and 4. A mock answers here, so it never reaches the network, yet the exchange is recorded with its attempts as
/// usual and marked mocked. Rewrites see the request as the middleware made it (with its credential), which is
/// what goes on the wire.
///
/// With no enabled rule the cost is one atomic load; with rules that match nothing, a short lock to read the
/// compiled ``RuleIndex`` and a few byte comparisons (Benchmarks/README.md, "Rules").
public struct RulesTransport: ClientTransport {
    public let base: any ClientTransport
    public let book: RuleBook

    /// Wraps `base`, acting on the rules of `book`.
    public init(wrapping base: any ClientTransport, book: RuleBook) {
        self.base = base
        self.book = book
    }

    public func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        guard book.isActive, let verdict = book.decide(request, body: body, context: context) else {
            return try await base.send(request, body: body, context: context)
        }
        let decision = verdict.decision
        let asked = request
        var request = request
        var body = body
        for rewrite in decision.rewrites {
            let before = request
            request = rewrite.rewrite.apply(to: request)
            let changes = RequestChanges(from: before, body: nil, to: request, body: nil)
            var attributes = changes.attributes
            attributes.merge(["rule": rewrite.name, "action": "rewrite", "to": request.authority ?? ""]) { $1 }
            context.record(.rule, "rule \(rewrite.name): rewrote the request: \(changes)", attributes: attributes)
        }
        var editedBody: Data?
        if let breakpoint = decision.breakpoint, breakpoint.breakpoint.request {
            (request, body, editedBody) = try await holdRequest(request, body: body, rule: breakpoint.name, context: context)
        }
        // What goes on the wire is recorded beside what the middleware handed down (the app's request), only when
        // they differ: an attempt no rule changed carries nothing more.
        if editedBody != nil || request != asked { context.attempt?.markRewritten(request, body: editedBody) }
        let response = try await answer(request, body: body, decision: decision, prepared: verdict.answer, context: context)
        if let breakpoint = decision.breakpoint, breakpoint.breakpoint.response {
            return try await holdResponse(response, request: request, rule: breakpoint.name, context: context)
        }
        return response
    }

    private func answer(
        _ request: HTTPRequest, body: RequestBody?, decision: RuleBookState.Decision, prepared: PreparedAnswer?,
        context: RequestContext
    ) async throws -> RawResponse {
        switch decision.terminal {
        case nil:
            return try await base.send(request, body: body, context: context)
        case .mock(let name, let mock)?:
            let answer = prepared ?? .mock(name, mock)
            context.record(.rule, answer.message, attributes: answer.attributes)
            context.attempt?.markRequestSent()
            context.attempt?.markFirstByte()
            return answer.response ?? mock.response
        case .fault(let name, let fault)?:
            let answer = prepared ?? .fault(name, fault)
            context.record(.rule, answer.message, attributes: answer.attributes)
            return try await fault.perform(request, body: body, context: context, clock: book.clock) { request, body, context in
                try await base.send(request, body: body, context: context)
            }
        }
    }

    /// Holds the request for the viewer; returns it as it goes on, with the body when an edit changed it.
    private func holdRequest(_ request: HTTPRequest, body: RequestBody?, rule: String, context: RequestContext)
        async throws -> (HTTPRequest, RequestBody?, Data?) {
        let since = book.now()
        let held = HeldRequest(
            exchangeID: context.exchangeID, rule: rule, phase: .request, operation: context.operation,
            method: request.method.rawValue, url: RuleSubject(request: request, body: nil, operation: "", attempt: 0).url,
            headers: request.headerFields.map { TraceHeader(name: $0.name.rawName, value: $0.value) },
            body: body?.bufferedData, since: since)
        let decision = await book.hold(held)
        let waited = Quantity.duration(book.now().timeIntervalSince(since))
        switch decision {
        case nil:
            context.record(.rule, "rule \(rule): request held \(waited), the longest hold; continued unchanged",
                           attributes: ["rule": rule, "action": "hold", "held": waited, "decision": "timeout"])
            return (request, body, nil)
        case .resume?:
            context.record(.rule, "rule \(rule): request held \(waited), continued",
                           attributes: ["rule": rule, "action": "hold", "held": waited, "decision": "continue"])
            return (request, body, nil)
        case .abort?:
            context.record(.rule, "rule \(rule): request held \(waited), aborted by the viewer",
                           attributes: ["rule": rule, "action": "hold", "held": waited, "decision": "abort"])
            throw AbortedAtBreakpointError(rule: rule)
        case .edit(let viewed)?:
            // The viewer edited the redacted form: the app's own values go back where it left the marker.
            let edit: HoldEdit
            switch HeldRedaction(book.redaction).restore(viewed, original: held) {
            case .success(let restored): edit = restored
            case .failure(let refusal):
                context.record(.rule, "rule \(rule): request held \(waited), the edit was refused (\(refusal)); continued unchanged",
                               attributes: ["rule": rule, "action": "hold", "held": waited, "decision": "edit-refused",
                                            "reason": refusal.description])
                return (request, body, nil)
            }
            let (edited, editedBody) = Self.apply(edit, to: request, body: body)
            let bodyBefore = body?.bufferedData
            let newBody = edit.body.flatMap { $0 == bodyBefore ? nil : $0 }
            let changes = RequestChanges(from: request, body: bodyBefore, to: edited, body: newBody)
            var changed: [String] = []
            if changes.target != nil { changed.append("target") }
            if !changes.set.isEmpty || !changes.removed.isEmpty { changed.append("headers") }
            if changes.body != nil { changed.append("body") }
            var attributes = changes.attributes
            attributes.merge(["rule": rule, "action": "hold", "held": waited, "decision": "edit",
                              "edited": changed.joined(separator: ",")]) { $1 }
            context.record(.rule, "rule \(rule): request held \(waited), edited (\(changes)) and continued",
                           attributes: attributes)
            return (edited, editedBody, newBody)
        }
    }

    private func holdResponse(_ response: RawResponse, request: HTTPRequest, rule: String, context: RequestContext)
        async throws -> RawResponse {
        let since = book.now()
        let held = HeldRequest(
            exchangeID: context.exchangeID, rule: rule, phase: .response, operation: context.operation,
            method: request.method.rawValue, url: RuleSubject(request: request, body: nil, operation: "", attempt: 0).url,
            headers: response.head.headerFields.map { TraceHeader(name: $0.name.rawName, value: $0.value) },
            body: response.body, status: response.head.status.code, since: since)
        let decision = await book.hold(held)
        let waited = Quantity.duration(book.now().timeIntervalSince(since))
        var attributes = ["rule": rule, "action": "hold-response", "held": waited]
        switch decision {
        case nil:
            attributes["decision"] = "timeout"
            context.record(.rule, "rule \(rule): response held \(waited), the longest hold; continued", attributes: attributes)
            return response
        case .resume?:
            attributes["decision"] = "continue"
            context.record(.rule, "rule \(rule): response held \(waited), continued", attributes: attributes)
            return response
        case .abort?:
            attributes["decision"] = "abort"
            context.record(.rule, "rule \(rule): response held \(waited), aborted by the viewer", attributes: attributes)
            throw AbortedAtBreakpointError(rule: rule)
        case .edit(let viewed)?:
            let edit: HoldEdit
            switch HeldRedaction(book.redaction).restore(viewed, original: held) {
            case .success(let restored): edit = restored
            case .failure(let refusal):
                attributes["decision"] = "edit-refused"
                attributes["reason"] = refusal.description
                context.record(.rule, "rule \(rule): response held \(waited), the edit was refused (\(refusal)); continued", attributes: attributes)
                return response
            }
            attributes["decision"] = "edit"
            attributes["mocked"] = "true"
            context.record(.rule, "rule \(rule): response held \(waited), edited by the viewer", attributes: attributes)
            var edited = response
            if let status = edit.status { edited.head.status = HTTPResponse.Status(code: status) }
            if let headers = edit.headers { edited.head.headerFields = Self.fields(headers) }
            if let body = edit.body { edited.body = body }
            return edited
        }
    }

    static func apply(_ edit: HoldEdit, to request: HTTPRequest, body: RequestBody?) -> (HTTPRequest, RequestBody?) {
        var request = request
        if let method = edit.method, let parsed = HTTPRequest.Method(method) { request.method = parsed }
        if let url = edit.url, let components = URLComponents(string: url), let scheme = components.scheme,
           let host = components.host {
            request.scheme = scheme
            request.authority = components.port.map { "\(host):\($0)" } ?? host
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            request.path = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
        if let headers = edit.headers { request.headerFields = fields(headers) }
        var body = body
        if let data = edit.body {
            body = .data(data)
            if request.headerFields[.contentLength] != nil { request.headerFields[.contentLength] = "\(data.count)" }
        }
        return (request, body)
    }

    static func fields(_ headers: [TraceHeader]) -> HTTPFields {
        var fields = HTTPFields()
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return fields
    }
}
