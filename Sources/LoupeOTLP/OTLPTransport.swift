import AsyncHTTPClient
import Foundation
import HTTPTypes
import Loupe
import NIOCore
import NIOHTTP1
import NIOPosix

/// Where an exporter's requests go: the real one POSTs over HTTP (``OTLPHTTPTransport``); tests script answers.
package protocol OTLPTransport: Sendable {
    /// Sends one encoded `ExportTraceServiceRequest` and says how it ended. Never throws: every failure is an
    /// outcome the delivery machine decides on.
    func send(_ body: [UInt8]) async -> OTLPDeliveryMachine.Outcome
}

/// An OTLP/HTTP traces endpoint: the full URL spans are POSTed to, and the headers sent with them (an API key
/// for a hosted backend, say).
public struct OTLPEndpoint: Sendable, Hashable {
    /// The traces endpoint, e.g. `http://127.0.0.1:4318/v1/traces` (OTLP/HTTP's default path is `/v1/traces`).
    public let url: URL
    /// Sent with every request, after `Content-Type`.
    public let headers: HTTPFields

    /// Checks `url`: `http` or `https`, with a host, and no user info (credentials belong in `headers`).
    ///
    /// A URL whose path ends in `/v1/traces` is used as given; any other is a base endpoint, as OpenTelemetry's
    /// exporters read `OTEL_EXPORTER_OTLP_ENDPOINT`, and `v1/traces` is appended to its path:
    /// `http://127.0.0.1:4318` posts to `http://127.0.0.1:4318/v1/traces`.
    public init(url: URL, headers: HTTPFields = [:]) throws(OTLPEndpointError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw OTLPEndpointError("an OTLP endpoint must be an http:// or https:// URL, not \(url.absoluteString)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw OTLPEndpointError("an OTLP endpoint needs a host: \(url.absoluteString)")
        }
        guard url.user == nil, url.password == nil else {
            throw OTLPEndpointError("an OTLP endpoint cannot carry user info; send credentials with a header")
        }
        self.url = Self.tracesURL(url)
        self.headers = headers
    }

    /// `url` itself when its path already names the traces signal, else `url` with `v1/traces` appended.
    static func tracesURL(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let path = components.percentEncodedPath
        if path.hasSuffix("/v1/traces") { return url }
        components.percentEncodedPath = (path.hasSuffix("/") ? path : path + "/") + "v1/traces"
        return components.url ?? url
    }

    /// As ``init(url:headers:)`` from text.
    public init(_ text: String, headers: HTTPFields = [:]) throws(OTLPEndpointError) {
        guard let url = URL(string: text), url.scheme != nil else {
            throw OTLPEndpointError("not a URL: \(text)")
        }
        try self.init(url: url, headers: headers)
    }
}

/// Why an OTLP endpoint was refused.
public struct OTLPEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in one line.
    public var description: String
    init(_ description: String) { self.description = description }
}

/// POSTs request bodies to an ``OTLPEndpoint`` with AsyncHTTPClient, `Content-Type: application/x-protobuf`.
package struct OTLPHTTPTransport: OTLPTransport {
    let endpoint: OTLPEndpoint
    let client: HTTPClient
    /// One request's limit, from connecting to the last byte of the answer.
    let timeout: Duration

    /// A process-wide client that reports a refused connection at once: AsyncHTTPClient's default re-dials until
    /// the request's deadline, so a collector that is down cost the whole timeout per try, and the delivery
    /// machine's own backoff (and its count of retries) decides instead. Redirects are not followed.
    package static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.timeout.connect = .seconds(5)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    package init(endpoint: OTLPEndpoint, client: HTTPClient = OTLPHTTPTransport.sharedClient, timeout: Duration = .seconds(10)) {
        self.endpoint = endpoint
        self.client = client
        self.timeout = timeout
    }

    package func send(_ body: [UInt8]) async -> OTLPDeliveryMachine.Outcome {
        var request = HTTPClientRequest(url: endpoint.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-protobuf")
        for field in endpoint.headers { request.headers.add(name: field.name.rawName, value: field.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
            // An answer is small (a partial success at most); more than 64 KiB is not read.
            let answer = try? await response.body.collect(upTo: 64 << 10)
            let bytes = answer.map { Array($0.readableBytesView) } ?? []
            return Self.outcome(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                                body: bytes, now: Date())
        } catch {
            return .retryable(reason: Self.describe(error), retryAfter: nil)
        }
    }

    /// An answer's outcome: 2xx accepted (less a partial success's `rejected_spans`), 429/502/503/504 retryable
    /// with `Retry-After`, anything else refused (OTLP/HTTP's specification lists the same retryable codes).
    package static func outcome(status: Int, retryAfter: String?, body: [UInt8], now: Date) -> OTLPDeliveryMachine.Outcome {
        switch status {
        case 200..<300:
            return .accepted(rejectedSpans: rejectedSpans(in: body))
        case 429, 502, 503, 504:
            return .retryable(reason: "HTTP \(status)", retryAfter: retryAfter.flatMap { RetryAfter.delay($0, now: now) })
        default:
            return .refused(status: status)
        }
    }

    /// `ExportTraceServiceResponse.partial_success` (1) → `ExportTracePartialSuccess.rejected_spans` (1); 0 when
    /// absent or unreadable (a JSON answer to a protobuf request, say).
    static func rejectedSpans(in body: [UInt8]) -> Int {
        var response = ProtobufReader(body)
        while let (field, value) = response.next() {
            guard field == 1, case .bytes(let partial) = value else { continue }
            var reader = ProtobufReader(partial)
            while let (inner, count) = reader.next() {
                if inner == 1, case .varint(let rejected) = count { return Int(clamping: rejected) }
            }
        }
        return 0
    }

    /// A failed send in a few words, for the exit line and the one warning: `cannot connect: Connection refused`,
    /// `timed out`.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as HTTPClientError where error == .connectTimeout:
            return "cannot connect: timed out"
        case let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout:
            return "timed out"
        case let error as NIOConnectionError:
            let reasons = error.connectionErrors.map { attempt -> String in
                (attempt.error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? String(describing: attempt.error)
            }
            return "cannot connect: " + (Array(Set(reasons)).sorted().joined(separator: ", ").nilIfEmpty ?? "no address")
        case let error as IOError:
            return String(cString: strerror(error.errnoCode))
        default:
            return String(describing: error)
        }
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension Duration {
    /// Whole nanoseconds (saturating), for APIs that take them.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return whole.addingReportingOverflow(attoseconds / 1_000_000_000).overflow ? .max : whole + attoseconds / 1_000_000_000
    }
}
