import Foundation
import LoupeTrace
import LoupeFormats
import Testing

@Suite("HARRedactor")
struct HARRedactorTests {
    static let har = #"""
        {"log": {"version": "1.2", "creator": {"name": "browser", "version": "1"},
          "pages": [{"id": "p1", "title": "Shop, seen with QK-11112222"}],
          "entries": [
            {"startedDateTime": "2024-01-01T00:00:00.000Z", "time": 12.5, "_priority": "High",
             "request": {"method": "POST", "url": "https://shop.test/api?api_key=QK-11112222&page=2",
               "httpVersion": "HTTP/1.1",
               "headers": [{"name": "authorization", "value": "Bearer BT-33334444"}, {"name": "accept", "value": "*/*"}],
               "queryString": [{"name": "api_key", "value": "QK-11112222"}, {"name": "page", "value": "2"}],
               "cookies": [{"name": "sid", "value": "CK-55556666"}],
               "postData": {"mimeType": "application/x-www-form-urlencoded", "text": "user=ada&password=PW-77778888",
                            "params": [{"name": "user", "value": "ada"}, {"name": "password", "value": "PW-77778888"}]},
               "headersSize": -1, "bodySize": 30},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
               "headers": [{"name": "content-type", "value": "application/json"}],
               "cookies": [],
               "content": {"size": 80, "mimeType": "application/json", "encoding": "base64",
                           "text": "BASE64BODY"},
               "redirectURL": "", "headersSize": -1, "bodySize": 80},
             "cache": {}, "timings": {"send": 1, "wait": 10, "receive": 1.5},
             "_loupe": {"operation": "POST /api?api_key=QK-11112222&page=2", "error": "echo BT-33334444"}},
            {"startedDateTime": "2024-01-01T00:00:01.000Z", "time": 1,
             "request": {"method": "GET", "url": "https://shop.test/health", "httpVersion": "HTTP/1.1",
               "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [],
               "content": {"size": 0, "mimeType": "text/plain"}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
             "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}
          ]}}
        """#

    static var document: Data {
        let body = Data(#"{"access_token":"AT-99990000","echo":"Bearer BT-33334444 and PW-77778888"}"#.utf8)
        return Data(har.replacingOccurrences(of: "BASE64BODY", with: body.base64EncodedString()).utf8)
    }

    @Test("every secret is removed by name and by value, base64 bodies included, and other fields are kept")
    func redactsEverything() throws {
        let result = try HARRedactor.redact(Self.document, policy: RedactionPolicy())
        #expect(result.entryCount == 2 && result.changedEntries == 1 && result.changed)
        let text = String(decoding: result.data, as: UTF8.self)
        for secret in ["QK-11112222", "BT-33334444", "CK-55556666", "PW-77778888", "AT-99990000"] {
            #expect(!text.contains(secret), "\(secret) survived")
        }
        #expect(!text.contains(Data("AT-99990000".utf8).base64EncodedString().dropLast(2)))
        let object = try #require(try JSONSerialization.jsonObject(with: result.data) as? [String: Any])
        let log = try #require(object["log"] as? [String: Any])
        let entry = try #require((log["entries"] as? [[String: Any]])?.first)
        #expect(entry["_priority"] as? String == "High")
        #expect((log["pages"] as? [[String: Any]])?.first?["title"] as? String == "Shop, seen with [REDACTED]")
        let request = try #require(entry["request"] as? [String: Any])
        #expect(request["url"] as? String == "https://shop.test/api?api_key=%5BREDACTED%5D&page=2")
        let content = try #require((entry["response"] as? [String: Any])?["content"] as? [String: Any])
        let decoded = try #require(Data(base64Encoded: content["text"] as? String ?? ""))
        #expect(String(decoding: decoded, as: UTF8.self)
            == #"{"access_token":"[REDACTED]","echo":"Bearer [REDACTED] and [REDACTED]"}"#)  // the scheme stays (DECISIONS 50)
    }

    @Test("a clean HAR is returned byte for byte; a second pass changes nothing")
    func stable() throws {
        let once = try HARRedactor.redact(Self.document, policy: RedactionPolicy())
        let twice = try HARRedactor.redact(once.data, policy: RedactionPolicy())
        #expect(!twice.changed && twice.data == once.data)
    }

    @Test("what is not a HAR is refused")
    func refusesOthers() {
        #expect(throws: HARRedactor.Failure.self) { try HARRedactor.redact(Data("nope".utf8), policy: RedactionPolicy()) }
        #expect(throws: HARRedactor.Failure.self) { try HARRedactor.redact(Data("{}".utf8), policy: RedactionPolicy()) }
    }
}
