import Foundation
import LoupeTesting
import Testing

@testable import Loupe

/// Request building escapes paths and query items itself (Foundation's `addingPercentEncoding` goes through
/// NSString on Linux); it must escape exactly what Foundation would.
@Suite struct PercentEncodingTests {
    static let foundationPath = CharacterSet.urlPathAllowed.union(CharacterSet(charactersIn: "%"))
    static let foundationQuery = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#;"))

    @Test func everyASCIICharacterIsEscapedAsFoundationWould() {
        for byte in UInt8(0)..<128 {
            let text = String(UnicodeScalar(byte))
            #expect(
                RequestTarget.percentEncode(text, allowed: RequestTarget.pathAllowed)
                    == text.addingPercentEncoding(withAllowedCharacters: Self.foundationPath), "path byte \(byte)")
            #expect(
                RequestTarget.encodeQueryComponent(text)
                    == text.addingPercentEncoding(withAllowedCharacters: Self.foundationQuery), "query byte \(byte)")
        }
    }

    @Test(arguments: 0..<4) func randomUnicodeStringsMatchFoundation(seed: UInt64) {
        let random = SeededRandomSource(seed: seed)
        let alphabet = Array("aZ09-._~!$&'()*+,;=:@/?#[]% \"<>\\^`{|}\u{7F}\t\néü€😀中\u{0}")
        for _ in 0..<500 {
            let text = String((0..<Int(random.next() % 12)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            #expect(
                RequestTarget.percentEncode(text, allowed: RequestTarget.pathAllowed)
                    == text.addingPercentEncoding(withAllowedCharacters: Self.foundationPath))
            #expect(RequestTarget.encodeQueryComponent(text) == text.addingPercentEncoding(withAllowedCharacters: Self.foundationQuery))
        }
    }

    @Test func aStringWithNothingToEscapeComesBackAsItIs() {
        #expect(RequestTarget.percentEncode("/v1/users/42", allowed: RequestTarget.pathAllowed) == "/v1/users/42")
        #expect(RequestTarget.encodeQueryComponent("a b&c=d") == "a%20b%26c%3Dd")
    }
}
