import Foundation
import HTTPTypes
import Loupe

/// A transport that picks a handler by method and path (exact, or a regular expression); unmatched requests
/// get 404 so a missing route shows up in the test instead of hanging.
public struct RoutedTransport: ClientTransport {
    /// How a route matches a request path.
    public enum PathPattern: Sendable {
        case exact(String)
        case regex(String)

        func matches(_ path: String) -> Bool {
            switch self {
            case .exact(let expected): return path == expected
            case .regex(let pattern): return path.range(of: "^(?:\(pattern))$", options: .regularExpression) != nil
            }
        }
    }

    /// One route: a method (nil for any), a path pattern and a handler.
    public struct Route: Sendable {
        public var method: HTTPRequest.Method?
        public var path: PathPattern
        public var handler: MockTransport.Handler

        public init(_ method: HTTPRequest.Method?, _ path: PathPattern, handler: @escaping MockTransport.Handler) {
            self.method = method
            self.path = path
            self.handler = handler
        }

        /// A route that always answers `response`.
        public init(_ method: HTTPRequest.Method?, _ path: PathPattern, response: RawResponse) {
            self.init(method, path) { _, _, _ in response }
        }
    }

    public let routes: [Route]

    public init(_ routes: [Route]) {
        self.routes = routes
    }

    public func send(_ request: HTTPRequest, body: RequestBody?, context: RequestContext) async throws -> RawResponse {
        let path = String((request.path ?? "/").split(separator: "?", maxSplits: 1).first ?? "/")
        for route in routes where (route.method == nil || route.method == request.method) && route.path.matches(path) {
            return try await route.handler(request, body, context)
        }
        return RawResponse(status: .notFound, body: Data("no route for \(request.method) \(path)".utf8))
    }
}
