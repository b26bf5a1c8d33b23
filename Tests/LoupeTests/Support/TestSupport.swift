// Shared fixtures for LoupeTests: endpoints, a client factory and a thread-safe recorder.
import Synchronization
import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

struct User: Codable, Equatable, Sendable {
    var id: Int
    var name: String
}

struct GetUser: Endpoint {
    typealias Response = User
    var id: Int
    var path: String { "/users/\(id)" }
    var query: [URLQueryItem] { [URLQueryItem(name: "fields", value: "id name&more")] }
    var headers: HTTPFields { [.accept: "application/json"] }
}

struct CreateUser: Endpoint {
    typealias Response = User
    var user: User
    var path: String { "users" }
    var method: HTTPRequest.Method { .post }
    var body: EndpointBody { .json(user) }
    var operationName: String { "createUser" }
}

struct Login: Endpoint {
    typealias Response = String
    var path: String { "/login" }
    var method: HTTPRequest.Method { .post }
    var body: EndpointBody { .form([URLQueryItem(name: "user", value: "ada lovelace"), URLQueryItem(name: "pw", value: "a&b=c/é")]) }
}

struct Ping: Endpoint {
    typealias Response = Empty
    var path: String { "/ping" }
}

func makeClient(
    _ transport: any ClientTransport,
    middlewares: [any ClientMiddleware] = [],
    observer: any ClientObserver = NoOpClientObserver(),
    base: String = "https://api.example.com/v1"
) -> Client {
    var configuration = ClientConfiguration()
    configuration.defaultHeaders = [.userAgent: "loupe-tests", .accept: "*/*"]
    return Client(baseURL: URL(string: base)!, transport: transport, middlewares: middlewares, observer: observer,
                  configuration: configuration)
}

/// A small thread-safe list for capturing values inside `@Sendable` closures.
final class Recorded<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}

/// The `ClientError` `task` failed with, once it has finished; records an issue and returns `nil` when it
/// succeeded or threw something else.
func clientError<Success: Sendable>(
    of task: Task<Success, any Error>, sourceLocation: SourceLocation = #_sourceLocation
) async -> ClientError? {
    let result = await task.result
    guard case .failure(let error as ClientError) = result else {
        Issue.record("expected a ClientError, got \(result)", sourceLocation: sourceLocation)
        return nil
    }
    return error
}
