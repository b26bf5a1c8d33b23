import Foundation
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

@Suite("StoredURLParts")
struct StoredURLPartsTests {
    static func components(_ url: String) -> (host: String, path: String) {
        let components = URLComponents(string: url)
        return (components?.host ?? "", components?.percentEncodedPath ?? "")
    }

    @Test("plain URLs are cut out directly, and give what URLComponents gives")
    func plainURLs() {
        let urls = [
            "https://api.example.com/v1/ping", "http://localhost:8080/", "https://API.Example.COM/v1/users/42?page=2",
            "https://a.b/x;y=1/z:w?q=a/b?c#frag/x?y", "h2c+x-y.z://host_name~1/!$&'()*+,;=", "https://h/p#",
            "https://h/p?", "https://h/?a=1&b=2#x",
        ]
        for url in urls {
            let plain = StoredURLParts.plain(url)
            #expect(plain != nil, "\(url) should take the direct path")
            #expect(plain?.host == Self.components(url).host && plain?.path == Self.components(url).path, "\(url)")
        }
    }

    @Test("anything else gets exactly what URLComponents gives")
    func otherURLs() {
        let urls = [
            "", "/relative", "https://", "https://host", "https://host?q", "https://host:/p", "https://host:x/p",
            "https://user:pw@host/p", "https://[::1]:8080/p", "https://caf%C3%A9.test/p", "https://h/a%20b",
            "https://h/a b", "https://h/p#a#b", "https://h/p?q=[1]", "file:///etc/hosts", "1http://h/p",
            "https://h/é", "mailto:a@b.c", "https://h/p|q", "HTTPS://H/P", "https://-/p", "https://xn--caf-dma.test/v1",
            "https://api.XN--caf-dma.test/v1", "https://a--b.test/", "https://a-b.test/",
        ]
        for url in urls {
            let parts = StoredURLParts.hostAndPath(of: url)
            #expect(parts.host == Self.components(url).host && parts.path == Self.components(url).path, "\(url)")
        }
    }

    @Test("random strings of URL characters get what URLComponents gives")
    func randomStrings() {
        var random = SeededGenerator(seed: 13)
        let alphabet = Array("ab9:/?#@%[].-_~!$&'()*+,;= |é///")
        let starts = ["https://", "http://a", "https://a.b", "https://a.b:80", "x://", ""]
        var direct = 0
        for _ in 0..<5_000 {
            let tail = String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let url = starts.randomElement(using: &random)! + tail
            if StoredURLParts.plain(url) != nil { direct += 1 }
            let parts = StoredURLParts.hostAndPath(of: url)
            let expected = Self.components(url)
            #expect(parts.host == expected.host && parts.path == expected.path, "\(url)")
        }
        #expect(direct > 100, "the direct path should take a share of these")
    }
}
