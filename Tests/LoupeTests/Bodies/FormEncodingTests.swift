import Foundation
import HTTPTypes
import Loupe
import LoupeTesting
import Testing

/// The form encoder runs on the shared percent-encoder (`RequestTarget.percentEncode`); its output must stay
/// byte for byte what the earlier per-byte `String(format:)` encoder produced.
@Suite struct FormEncodingTests {
    /// The encoder as it was before it shared `RequestTarget.percentEncode`: the reference for every case here.
    static func previousEscape(_ string: String) -> String {
        let unreserved = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._".utf8)
        var result = ""
        for byte in string.utf8 {
            if unreserved.contains(byte) {
                result.unicodeScalars.append(UnicodeScalar(byte))
            } else if byte == UInt8(ascii: " ") {
                result += "+"
            } else {
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    static func previousEncode(_ items: [URLQueryItem]) -> String {
        items.map { previousEscape($0.name) + "=" + previousEscape($0.value ?? "") }.joined(separator: "&")
    }

    @Test func everyASCIIByteEncodesAsBefore() {
        for byte in UInt8(0)...127 {
            let text = String(UnicodeScalar(byte))
            let items = [URLQueryItem(name: "k" + text, value: text + "v" + text)]
            #expect(FormEncoding.encode(items) == Self.previousEncode(items), "byte \(byte)")
        }
        // All of ASCII in one value, pinned literally (space is `+`, `~` is escaped, `*` is not).
        let all = String(decoding: (1...127).map { UInt8($0) }, as: UTF8.self)
        let expected = "%01%02%03%04%05%06%07%08%09%0A%0B%0C%0D%0E%0F%10%11%12%13%14%15%16%17%18%19%1A%1B%1C%1D%1E%1F"
            + "+%21%22%23%24%25%26%27%28%29*%2B%2C-.%2F0123456789%3A%3B%3C%3D%3E%3F%40ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            + "%5B%5C%5D%5E_%60abcdefghijklmnopqrstuvwxyz%7B%7C%7D%7E%7F"
        #expect(FormEncoding.encode([URLQueryItem(name: "a", value: all)]) == "a=" + expected)
    }

    @Test(arguments: [
        "", " ", "  ", " leading", "trailing ", "a b  c", "café au lait", "日本語 テキスト", "emoji 👩‍👩‍👧 family",
        "e\u{301} combining after e", " \u{301} combining after a space", "%20 already escaped + plus", "a=b&c=d",
        "line\r\nbreak", "nul\u{0}byte", "\u{7F}\u{80}\u{FFFF}", "x~y*z",
    ])
    func nonASCIIAndAwkwardStringsEncodeAsBefore(_ text: String) {
        let items = [URLQueryItem(name: text, value: text), URLQueryItem(name: "n", value: nil)]
        #expect(FormEncoding.encode(items) == Self.previousEncode(items))
    }

    @Test func aFormBodyIsSentWithTheEncoding() async throws {
        let seen = Recorded<(String?, Data)>()
        let client = makeComponentsClient(MockTransport { request, body, _ in
            seen.append((request.headerFields[.contentType], try await ReadBody.read(body).bytes))
            return RawResponse(status: .noContent)
        })
        _ = try await client.send(FormEndpoint(items: [URLQueryItem(name: "q", value: "a b+c"), URLQueryItem(name: "é", value: "~")]))
        let (contentType, bytes) = try #require(seen.values.first)
        #expect(contentType == "application/x-www-form-urlencoded")
        #expect(String(decoding: bytes, as: UTF8.self) == "q=a+b%2Bc&%C3%A9=%7E")
    }
}

private struct FormEndpoint: Endpoint {
    typealias Response = Empty
    var method: HTTPRequest.Method { .post }
    var items: [URLQueryItem]
    var path: String { "/form" }
    var body: EndpointBody { .form(items) }
}
