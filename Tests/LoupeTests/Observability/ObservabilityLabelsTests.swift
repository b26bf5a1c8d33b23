import Foundation
import HTTPTypes
import Testing

@testable import Loupe

@Suite struct ObservabilityLabelsTests {
    @Test(arguments: [
        ("api.example.com", "api.example.com"),
        ("api.example.com:8443", "api.example.com"),
        ("user:secret@api.example.com:8443", "api.example.com"),
        ("[::1]:8080", "::1"),
        ("[2001:db8::1]", "2001:db8::1"),
        ("127.0.0.1:80", "127.0.0.1"),
        ("bücher.example", "bücher.example"),
        (":8080", "unknown"),
    ])
    func theHostLabelIsTheAuthorityWithoutUserInfoOrPort(authority: String, expected: String) {
        let request = HTTPRequest(method: .get, scheme: "https", authority: authority, path: "/")
        #expect(ObservabilityLabels.host(request) == expected)
    }

    @Test func aRequestWithoutAuthorityIsUnknown() {
        #expect(ObservabilityLabels.host(HTTPRequest(method: .get, scheme: "https", authority: nil, path: "/")) == "unknown")
    }
}
