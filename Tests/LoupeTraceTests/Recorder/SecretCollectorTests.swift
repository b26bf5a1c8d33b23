@testable import LoupeTrace
import Testing

@Suite("Secret collector")
struct SecretCollectorTests {
    @Test("a collector that keeps nothing skips the search; any other finds the credentials inside a header")
    func keepsNothing() {
        var ignoring = SecretCollector(minimumLength: .max)
        ignoring.addHeader(name: "Authorization", value: "Basic dXNlcjpzM2NyZXQtcGFzcw==")
        ignoring.addHeader(name: "Cookie", value: "session=abcdef123")
        ignoring.addEncoded("abc%20def")
        #expect(ignoring.keepsNothing && ignoring.isEmpty)

        var collecting = SecretCollector(minimumLength: 4)
        collecting.addHeader(name: "Authorization", value: "Basic dXNlcjpzM2NyZXQtcGFzcw==")
        collecting.addHeader(name: "Cookie", value: "session=abcdef123")
        #expect(!collecting.keepsNothing)
        #expect(collecting.values.isSuperset(of: ["user:s3cret-pass", "s3cret-pass", "abcdef123"]))
    }
}
