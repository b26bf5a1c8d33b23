import Foundation
import HTTPTypes
import Loupe

/// The flaky API's operations as typed endpoints: what an app using Loupe writes.
public enum DemoEndpoints {
    public struct User: Codable, Sendable, Hashable {
        public var id: Int
        public var name: String
        public var active: Bool
    }

    public struct ListUsers: Endpoint {
        public typealias Response = [User]
        public init() {}
        public var path: String { "/users" }
        public var operationName: String { "listUsers" }
    }

    public struct GetUser: Endpoint {
        public typealias Response = User
        public let id: Int
        public init(id: Int) { self.id = id }
        public var path: String { "/users/\(id)" }
        public var operationName: String { "getUser" }
    }

    public struct Flaky: Endpoint {
        public typealias Response = Data
        public init() {}
        public var path: String { "/flaky" }
        public var operationName: String { "flaky" }
    }

    /// `/completions`: a model-like answer streamed token by token (read with `client.events`).
    public struct Completion: Endpoint {
        public typealias Response = Data
        public init() {}
        public var path: String { "/completions" }
        public var operationName: String { "completion" }
    }

    /// `/ticker`: a WebSocket price feed (opened with `client.webSocket`).
    public struct Ticker: Endpoint {
        public typealias Response = Data
        public init() {}
        public var path: String { "/ticker" }
        public var operationName: String { "ticker" }
    }

    public struct Slow: Endpoint {
        public typealias Response = Data
        public let milliseconds: Int
        public init(milliseconds: Int) { self.milliseconds = milliseconds }
        public var path: String { "/slow" }
        public var query: [URLQueryItem] { [URLQueryItem(name: "ms", value: String(milliseconds))] }
        public var operationName: String { "slow" }
    }

    public struct Profile: Endpoint {
        public typealias Response = Data
        public let token: String
        public init(token: String) { self.token = token }
        public var path: String { "/secure/profile" }
        public var headers: HTTPFields { [.authorization: "Bearer \(token)"] }
        public var operationName: String { "profile" }
        /// A user is waiting for it: it goes ahead of queued requests (recorded as the attempt note `priority`).
        public var metadata: RequestMetadata? { RequestMetadata(priority: .high) }
    }

    public struct Order: Codable, Sendable {
        public var item: String
        public var quantity: Int
        public init(item: String, quantity: Int) {
            self.item = item
            self.quantity = quantity
        }
    }

    public struct CreateOrder: Endpoint {
        public typealias Response = Data
        public let order: Order
        public init(order: Order) { self.order = order }
        public var path: String { "/orders" }
        public var method: HTTPRequest.Method { .post }
        public var body: EndpointBody { .json(order) }
        public var operationName: String { "createOrder" }
    }

    public struct Inventory: Endpoint {
        public typealias Response = Data
        public init() {}
        public var path: String { "/inventory" }
        public var operationName: String { "inventory" }
    }

    /// An endpoint that always answers 503 (no Retry-After): the demo calls it in bursts.
    public struct Burst: Endpoint {
        public typealias Response = Data
        public let number: Int
        public init(number: Int) { self.number = number }
        public var path: String { "/burst" }
        public var query: [URLQueryItem] { [URLQueryItem(name: "n", value: String(number))] }
        public var operationName: String { "burst" }
    }

    public struct Binary: Endpoint {
        public typealias Response = Data
        public init() {}
        public var path: String { "/binary" }
        public var operationName: String { "binary" }
    }
}
