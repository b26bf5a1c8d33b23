import Foundation
import HTTPTypes
import Logging

/// Logs each exchange on swift-log: the request line, then the status and duration, or the failure.
///
/// Put it first in the middleware list to log one request and one outcome per exchange (the outcome carries the
/// number of attempts), or last to log every attempt. Every line carries `loupe.operation`,
/// `loupe.exchange_id` and the method and URL; outcomes add `http.response.status_code`, `loupe.status_class`,
/// `loupe.duration_ms` and `loupe.attempts`. Header values named in ``redactedHeaders`` and query values named
/// in ``redactedQueryItems`` are logged as `<redacted>`; the URL never includes user info.
public struct LoggingMiddleware: ClientMiddleware {
    /// Headers whose values are never logged: credentials and session cookies.
    public static let defaultRedactedHeaders: Set<HTTPField.Name> = [
        .authorization, .proxyAuthorization, .cookie, .setCookie,
    ]

    /// Where lines go.
    public var logger: Logger
    /// The level of the request line (`debug`).
    public var requestLevel: Logger.Level
    /// The level of a response below 500 (`info`).
    public var responseLevel: Logger.Level
    /// The level of a thrown error or a 5xx response (`warning`).
    public var failureLevel: Logger.Level
    /// Whether header fields are logged as `http.request.header.*` / `http.response.header.*` metadata.
    public var logsHeaders: Bool
    /// Headers logged as `<redacted>`.
    public var redactedHeaders: Set<HTTPField.Name>
    /// Query item names (case-insensitive) whose values are logged as `<redacted>`.
    public var redactedQueryItems: Set<String>

    /// A logging middleware; the defaults log requests at debug, outcomes at info and failures at warning.
    public init(
        logger: Logger = Logger(label: "loupe.client"),
        requestLevel: Logger.Level = .debug,
        responseLevel: Logger.Level = .info,
        failureLevel: Logger.Level = .warning,
        logsHeaders: Bool = true,
        redactedHeaders: Set<HTTPField.Name> = LoggingMiddleware.defaultRedactedHeaders,
        redactedQueryItems: Set<String> = ["access_token", "api_key", "apikey", "token", "password", "signature"]
    ) {
        self.logger = logger
        self.requestLevel = requestLevel
        self.responseLevel = responseLevel
        self.failureLevel = failureLevel
        self.logsHeaders = logsHeaders
        self.redactedHeaders = redactedHeaders
        self.redactedQueryItems = Set(redactedQueryItems.map { $0.lowercased() })
    }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        let url = ObservabilityLabels.displayURL(request, redactingQueryItems: redactedQueryItems)
        let line = "\(request.method.rawValue) \(url)"
        let base: Logger.Metadata = [
            "loupe.operation": "\(context.operation)",
            "loupe.exchange_id": "\(context.exchangeID)",
            "http.request.method": "\(request.method.rawValue)",
            "url.full": "\(url)",
        ]
        logger.log(level: requestLevel, "\(line)", metadata: base.merging(headers(request.headerFields, "request")) { $1 })
        let before = context.attemptsSoFar
        let (result, elapsed) = await Stopwatch.measureResult(on: context.clock) { try await next(request, body, context) }
        var outcome = base
        outcome["loupe.duration_ms"] = "\(ObservabilityLabels.milliseconds(elapsed))"
        outcome["loupe.attempts"] = "\(context.attemptsSoFar - before)"
        switch result {
        case .success(let response):
            let status = response.status.code
            outcome["http.response.status_code"] = "\(status)"
            outcome["loupe.status_class"] = "\(ObservabilityLabels.statusClass(status))"
            let level = status >= 500 ? failureLevel : responseLevel
            logger.log(
                level: level, "\(status) \(line) in \(ObservabilityLabels.milliseconds(elapsed)) ms",
                metadata: outcome.merging(headers(response.head.headerFields, "response")) { $1 })
        case .failure(let error):
            outcome["loupe.status_class"] = "error"
            outcome["error.type"] = "\(ObservabilityLabels.errorType(error))"
            outcome["error.message"] = "\(error)"
            logger.log(level: failureLevel, "\(line) failed after \(ObservabilityLabels.milliseconds(elapsed)) ms: \(error)",
                       metadata: outcome)
        }
        return try result.get()
    }

    /// Header fields as `http.<direction>.header.<name>` metadata, redacted, or none when headers are not logged.
    func headers(_ fields: HTTPFields, _ direction: String) -> Logger.Metadata {
        guard logsHeaders else { return [:] }
        var metadata: Logger.Metadata = [:]
        for name in Set(fields.map(\.name)) {
            let values = redactedHeaders.contains(name) ? ["<redacted>"] : fields[values: name]
            metadata["http.\(direction).header.\(name.canonicalName)"] = .array(values.map { .string($0) })
        }
        return metadata
    }
}
