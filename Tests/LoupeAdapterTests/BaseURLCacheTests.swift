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

    /// The request is made absolute by setting the cached scheme and authority fields on a copy (DECISIONS 155):
    /// the same request as one made from the parts' strings, and the generated client's own request unchanged.
    @Test(arguments: [
        "http://127.0.0.1:8080", "https://api.example.com/v2/", "http://127.0.0.1:9090/base", "https://[::1]:8443/a/b",
    ])
    func theAbsoluteRequestIsTheOneMadeFromTheBaseURLsPartsAndTheOriginalIsLeftAlone(base: String) throws {
        let cache = BaseURLCache()
        let baseURL = try #require(URL(string: base))
        let parts = BaseURLCache.Parts(baseURL)
        for request in [
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/users/1?x=1", headerFields: [.accept: "application/json"]),
            HTTPRequest(method: .post, scheme: "ftp", authority: "elsewhere.test", path: "/p"),
            HTTPRequest(method: .delete, scheme: nil, authority: "own.test:81", path: nil),
        ] {
            let before = request
            let expected = HTTPRequest(
                method: request.method, scheme: parts.scheme, authority: parts.authority ?? request.authority,
                path: parts.prefix.isEmpty ? request.path : parts.prefix + (request.path ?? ""),
                headerFields: request.headerFields)
            for _ in 0..<2 {  // made, then from the cache
                #expect(OpenAPIRequest.absolute(request, baseURL: baseURL, cache: cache) == expected, "\(base) \(request)")
            }
            #expect(OpenAPIRequest.absolute(request, baseURL: baseURL) == expected)
            #expect(request == before && request.scheme == before.scheme && request.authority == before.authority)
        }
    }
}
