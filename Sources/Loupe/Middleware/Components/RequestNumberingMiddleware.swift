import Foundation
import HTTPTypes
import Synchronization

/// Numbers every request that passes through it from one counter shared by the whole client: 1, 2, 3…
///
/// The number goes out in a header (`X-Request-Number` by default) and is recorded as the attempt annotation
/// `request-number`, so a server log line and a recorded attempt can be matched. Placed before a retry
/// middleware, a logical request keeps one number across its attempts; placed after, every attempt gets its own.
public struct RequestNumberingMiddleware: ClientMiddleware {
    /// The header that carries the number.
    public let headerName: HTTPField.Name
    private let counter: Counter

    /// Numbers requests from `first`, sending the number in `headerName`.
    public init(headerName: HTTPField.Name = HTTPField.Name("X-Request-Number")!, first: Int = 1) {
        self.headerName = headerName
        self.counter = Counter(next: first)
    }

    public nonisolated(nonsending) func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        context: RequestContext,
        next: Next
    ) async throws -> RawResponse {
        let number = counter.take()
        var request = request
        request.headerFields[headerName] = String(number)
        var context = context
        context.annotations.note("request-number", String(number))
        return try await next(request, body, context)
    }
}

/// The counter copies of the middleware share; an atomic, so numbering never takes a lock.
private final class Counter: Sendable {
    private let value: Atomic<Int>

    init(next: Int) {
        value = Atomic(next)
    }

    func take() -> Int {
        value.add(1, ordering: .relaxed).oldValue
    }
}
