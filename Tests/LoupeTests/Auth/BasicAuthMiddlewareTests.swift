import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

@Suite struct BasicAuthMiddlewareTests {
    @Test func addsTheRFC7617Field() async throws {
        let seen = Recorded<String?>()
        let transport = MockTransport { request, _, _ in
            seen.append(request.headerFields[.authorization])
            return RawResponse(status: .ok)
        }
        let client = Interleaving.client(transport, middlewares: [BasicAuthMiddleware(username: "Aladdin", password: "open sesame")])
        _ = try await client.execute(Interleaving.request())
        // The example of RFC 7617 section 2.
        #expect(seen.values == ["Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="])
    }

    @Test func encodesUTF8() {
        let middleware = BasicAuthMiddleware(username: "test", password: "123£")
        #expect(middleware.headerValue == "Basic dGVzdDoxMjPCow==")
    }

    @Test func keepsAnAuthorizationTheRequestAlreadyHas() async throws {
        let seen = Recorded<String?>()
        let transport = MockTransport { request, _, _ in
            seen.append(request.headerFields[.authorization])
            return RawResponse(status: .ok)
        }
        let client = Interleaving.client(transport, middlewares: [BasicAuthMiddleware(username: "a", password: "b")])
        _ = try await client.execute(Interleaving.request(headers: [.authorization: "Bearer mine"]))
        #expect(seen.values == ["Bearer mine"])
    }
}
