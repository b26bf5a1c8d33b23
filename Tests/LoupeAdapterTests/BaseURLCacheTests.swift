import Foundation
import HTTPTypes
@testable import LoupeOpenAPI
import Testing

/// The adapters keep the last `baseURL`'s parts: a client that changes servers must never be recorded under the
/// previous one.
@Suite struct BaseURLCacheTests {
    @Test func eachBaseURLGivesItsOwnAbsoluteRequestEvenAfterAnother() {
        let cache = BaseURLCache()
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/users/1")
        let cases: [(String, String, String, String)] = [
            ("http://127.0.0.1:8080", "http", "127.0.0.1:8080", "/users/1"),
            ("https://api.example.com/v2/", "https", "api.example.com", "/v2/users/1"),
            ("http://127.0.0.1:8080", "http", "127.0.0.1:8080", "/users/1"),
            ("http://127.0.0.1:9090/base", "http", "127.0.0.1:9090", "/base/users/1"),
        ]
        for (base, scheme, authority, path) in cases {
            for _ in 0..<2 {  // the second call is answered from the cache
                let absolute = OpenAPIRequest.absolute(request, baseURL: URL(string: base)!, cache: cache)
                #expect(absolute.scheme == scheme && absolute.authority == authority && absolute.path == path, "\(base)")
            }
        }
    }
}
