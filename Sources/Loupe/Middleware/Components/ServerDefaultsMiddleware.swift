import Foundation
import HTTPTypes

/// Sends requests to the selected ``ServerEnvironment``: rewrites scheme, authority and path prefix, and adds the
/// environment's default header fields without overriding fields the request already has.
///
/// With `replacing` set (usually the client's own base URL), only requests under that URL are moved, and others —
/// absolute URLs to third parties — pass untouched, so default headers such as credentials never leak to them.
/// Without it, every request is moved and the environment's path prefix is put in front of the request's path.
///
/// ```swift
/// let environments = ServerEnvironmentSwitch([production, staging], initial: production)
/// let client = Client(baseURL: production.baseURL, transport: transport,
///                     middlewares: [ServerDefaultsMiddleware(environments, replacing: production.baseURL)])
/// try environments.select("staging")   // later requests go to staging
/// ```
public struct ServerDefaultsMiddleware: ClientMiddleware {
    private let environment: @Sendable () -> ServerEnvironment
    private let source: URLPrefix?

    /// Always uses `environment`.
    public init(environment: ServerEnvironment, replacing base: URL? = nil) {
        self.environment = { environment }
        self.source = base.map(URLPrefix.init)
    }

    /// Uses whichever environment `environments` has selected when each request passes.
    public init(_ environments: ServerEnvironmentSwitch, replacing base: URL? = nil) {
        self.environment = { environments.current }
        self.source = base.map(URLPrefix.init)
    }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        let environment = environment()
        let path = request.path ?? "/"
        let rest: String
        if let source {
            guard let remainder = source.remainder(of: request) else { return try await next(request, body, context) }
            rest = remainder
        } else {
            rest = path
        }
        let target = URLPrefix(environment.baseURL)
        var request = request
        request.scheme = target.scheme
        request.authority = target.authority
        request.path = URLPrefix.join(target.path, rest)
        for field in environment.defaultHeaders where request.headerFields[field.name] == nil {
            request.headerFields[field.name] = field.value
        }
        var context = context
        context.annotations.note("environment", environment.name)
        return try await next(request, body, context)
    }
}

/// The scheme, authority and path prefix of a base URL, compared the way a server routes them.
struct URLPrefix: Sendable {
    var scheme: String?
    var authority: String?
    /// The path without a trailing slash ("" for the root).
    var path: String

    init(_ url: URL) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        scheme = components?.scheme?.lowercased()
        authority = components.flatMap { c in c.host.map { host in c.port.map { "\(host):\($0)" } ?? host } }
        let path = components?.percentEncodedPath ?? ""
        self.path = path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// What follows this prefix in `request` ("/users?x=1"), or nil when the request is elsewhere.
    func remainder(of request: HTTPRequest) -> String? {
        guard request.scheme?.lowercased() == scheme, request.authority?.lowercased() == authority?.lowercased() else {
            return nil
        }
        let full = request.path ?? "/"
        guard full.hasPrefix(path) else { return nil }
        let rest = full.dropFirst(path.count)
        // "/v1" owns "/v1", "/v1/…" and "/v1?…", not "/v10".
        guard rest.isEmpty || rest.hasPrefix("/") || rest.hasPrefix("?") else { return nil }
        return String(rest)
    }

    /// `prefix` + `rest`, with exactly one slash between them and a path that starts with "/".
    static func join(_ prefix: String, _ rest: String) -> String {
        if rest.isEmpty { return prefix.isEmpty ? "/" : prefix }
        if rest.hasPrefix("?") { return (prefix.isEmpty ? "/" : prefix) + rest }
        return prefix + (rest.hasPrefix("/") ? rest : "/" + rest)
    }
}
