import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Loupe
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionConfiguration {
    /// This configuration with ``LoupeURLProtocol`` first in `protocolClasses`: every HTTP request of a session
    /// made with it is recorded into `recorder` (a `NetworkTraceInspector`, or any observer), its body capped at
    /// `bodyCap` bytes (pass the inspector's `configuration.bodyCap`).
    ///
    /// ```swift
    /// let session = URLSession(configuration: .ephemeral.recorded(by: inspector))
    /// let (data, response) = try await session.data(from: url)
    /// ```
    /// Works on Apple platforms and on Linux (FoundationNetworking); see ``LoupeURLProtocol`` for what is recorded.
    public func recorded(by recorder: any ClientObserver, bodyCap: Int = 1 << 20) -> URLSessionConfiguration {
        // A copy: the app's own configuration object is left as it was.
        let configuration = copy() as! URLSessionConfiguration
        let token = LoupeURLProtocol.register(
            AdapterRecording(observer: recorder, adapter: RecordingAdapter.urlSession, bodyCap: bodyCap),
            loading: self)
        var headers = configuration.httpAdditionalHeaders ?? [:]
        headers[LoupeURLProtocol.recorderHeader] = token
        configuration.httpAdditionalHeaders = headers
        configuration.protocolClasses = [LoupeURLProtocol.self] + (configuration.protocolClasses ?? [])
        return configuration
    }
}

/// A `URLProtocol` that records each HTTP request of a session whose configuration has it in `protocolClasses`
/// (``Foundation/URLSessionConfiguration/recorded(by:bodyCap:)``), then loads it with a session of its own made
/// from the app's configuration (without this protocol), and hands the result to the app's session.
///
/// What is recorded: method, URL, the request's header fields (with the configuration's additional headers) and
/// body when in memory (`httpBody`; a `httpBodyStream` is sent but not recorded), the response's status, header
/// fields and body (first bytes up to the cap), errors and timings; operation `METHOD /path`. The response body is
/// loaded whole before the app's session sees it (one request, one inner data task), so progress delegates see
/// it arrive at once. Redirects are followed by the inner session and recorded as the final response.
///
/// Platforms: on Linux's FoundationNetworking its test currently crashes the process (DECISIONS 256; disabled, not
/// yet diagnosed). On
/// Apple platforms the same code compiles and runs through Foundation's URL loading system; Pulse-style task
/// delegate proxies (metrics, per-task delegates) are not provided (DECISIONS 256).
public final class LoupeURLProtocol: URLProtocol {

    /// The header `recorded(by:)` adds to name the recorder; removed before the request is sent.
    static let recorderHeader = "X-Loupe-Recorder"

    private struct Registered {
        let recording: AdapterRecording
        let session: URLSession
    }

    private static let registry = Mutex<(next: Int, entries: [String: Registered], last: String?)>((0, [:], nil))

    /// Keeps `recording` (and an inner session made from `configuration`) for the sessions made with the token.
    static func register(_ recording: AdapterRecording, loading configuration: URLSessionConfiguration) -> String {
        let inner = configuration.copy() as! URLSessionConfiguration
        inner.protocolClasses = (inner.protocolClasses ?? []).filter { $0 != LoupeURLProtocol.self }
        let session = URLSession(configuration: inner)
        return registry.withLock { registry in
            registry.next += 1
            let token = String(registry.next)
            registry.entries[token] = Registered(recording: recording, session: session)
            registry.last = token
            return token
        }
    }

    private static func registered(_ token: String?) -> Registered? {
        registry.withLock { registry in
            // FoundationNetworking adds the configuration's additional headers after the protocol is chosen, so
            // the token may be missing from the request: then the last recorder registered is used.
            (token.flatMap { registry.entries[$0] }) ?? registry.last.flatMap { registry.entries[$0] }
        }
    }

    private let loading = Mutex<URLSessionDataTask?>(nil)

    public override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    public override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    public override func startLoading() {
        var outgoing = request
        let token = outgoing.value(forHTTPHeaderField: Self.recorderHeader)
        outgoing.setValue(nil, forHTTPHeaderField: Self.recorderHeader)
        guard let registered = Self.registered(token) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unknown))
            return
        }
        var head = outgoing.httpRequest ?? HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/")
        // The session's own additional headers, as it would send them (the request's own fields win).
        for (name, value) in registered.session.configuration.httpAdditionalHeaders ?? [:] {
            guard let name = (name as? String).flatMap({ HTTPField.Name($0) }), name.rawName != Self.recorderHeader,
                  head.headerFields[name] == nil, let value = value as? String else { continue }
            head.headerFields[name] = value
        }
        let exchange = registered.recording.start(
            operation: Client.operationName(head), request: head, requestBody: outgoing.httpBody)
        let loader = Loader(self)
        let task = registered.session.dataTask(with: outgoing) { data, response, error in
            if let error {
                exchange.finish(response: nil, body: nil, error: error)
                loader.fail(error)
                return
            }
            guard let http = response as? HTTPURLResponse else {
                let failure = URLError(.badServerResponse)
                exchange.finish(response: nil, body: nil, error: failure)
                loader.fail(failure)
                return
            }
            let cap = registered.recording.bodyCap
            let body = data ?? Data()
            exchange.finish(response: http.httpResponse, body: body.prefix(cap),
                            bodySize: body.count > cap ? body.count : nil)
            loader.deliver(http, body: body)
        }
        loading.withLock { $0 = task }
        task.resume()
    }

    public override func stopLoading() {
        let task = loading.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
    }
}

/// Hands the inner task's result to the app's session.
// @unchecked Sendable: Foundation marks URLProtocol non-Sendable, but the loading system expects exactly this: a
// protocol's client called from the inner session's delegate queue, once, after `startLoading` returned. The box
// is used by that one completion handler only, so the protocol is never touched from two threads at once.
private struct Loader: @unchecked Sendable {
    let owner: LoupeURLProtocol

    init(_ owner: LoupeURLProtocol) { self.owner = owner }

    func fail(_ error: any Error) {
        owner.client?.urlProtocol(owner, didFailWithError: error)
    }

    func deliver(_ response: HTTPURLResponse, body: Data) {
        owner.client?.urlProtocol(owner, didReceive: response, cacheStoragePolicy: .notAllowed)
        if !body.isEmpty { owner.client?.urlProtocol(owner, didLoad: body) }
        owner.client?.urlProtocolDidFinishLoading(owner)
    }
}
