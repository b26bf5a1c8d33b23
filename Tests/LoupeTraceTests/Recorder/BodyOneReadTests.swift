import Foundation
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// A JSON body is read once for its field redaction and its text scan (DECISIONS 53): the result and what is
/// collected must be exactly those of the two steps taken one after the other, as before.
@Suite struct BodyOneReadTests {
    /// The steps as they were: fields by name when the body looks like JSON, then URLs and credentials in its text.
    static func reference(_ policy: RedactionPolicy, _ body: Data, _ secrets: inout SecretCollector) -> Data {
        var named = body
        if !policy.jsonFieldNames.isEmpty || !policy.headerNames.isEmpty, JSONFieldRedactor.looksLikeJSON(body) {
            named = JSONFieldRedactor.redact(body, names: policy.jsonFieldNames, headerNames: policy.headerNames,
                                             collecting: &secrets) ?? body
        }
        return policy.redactText(body: named, collecting: &secrets) ?? named
    }

    @Test("random JSON bodies with fields, URLs and credentials: the same bytes and the same secrets collected")
    func sameAsTheTwoSteps() {
        var random = SeededGenerator(seed: 468)
        let values = [#""ok""#, "42", "true", #""https://x.example/cb?access_token=abcdefgh12345678""#,
                      #""Bearer tok_ABCDEFGH12345678""#, #""https:\/\/x.example\/cb?code=zz&state=1""#, #""plain text""#,
                      #""see /cb?token=qwertyuiop1234""#, "null", #"{"password":"hunter22"}"#, #"["basic dXNlcjpwYXNz"]"#]
        let keys = ["ok", "id", "password", "Authorization", "next", "note", "access_token", "token", "name"]
        for policy in [RedactionPolicy(), RedactionPolicy(jsonFieldNames: ["note"]), .none] {
            for _ in 0..<600 {
                let fields = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                    "\"\(keys.randomElement(using: &random)!)\":\(values.randomElement(using: &random)!)"
                }
                let text = Bool.random(using: &random) ? "{\(fields.joined(separator: ","))}" : " [\(fields.joined(separator: ", "))]"
                let body = Data(text.utf8)
                var expectedSecrets = SecretCollector(minimumLength: 6), secrets = SecretCollector(minimumLength: 6)
                let expected = Self.reference(policy, body, &expectedSecrets)
                #expect(policy.redact(body: body, contentType: "application/json", collecting: &secrets) == expected, "\(text)")
                #expect(secrets.list == expectedSecrets.list, "\(text)")
            }
        }
    }

    @Test("bodies that are not JSON still go through forms, multipart and text as before")
    func otherBodies() {
        let policy = RedactionPolicy()
        var secrets = SecretCollector(minimumLength: 6)
        let form = policy.redact(body: Data("user=ada&password=hunter22".utf8), contentType: nil, collecting: &secrets)
        #expect(String(decoding: form, as: UTF8.self) == "user=ada&password=%5BREDACTED%5D")
        let text = policy.redact(body: Data("call https://x.example/cb?access_token=abcdefgh12345678 now".utf8),
                                 contentType: "text/plain", collecting: &secrets)
        #expect(!String(decoding: text, as: UTF8.self).contains("abcdefgh12345678"))
        #expect(secrets.list.contains("hunter22") && secrets.list.contains("abcdefgh12345678"))
    }

    @Test("the URL is scrubbed with the URL marker's bytes given: the same text as naming the marker")
    func urlScrub() throws {
        let scrubber = try #require(ValueScrubber(values: ["abcdefgh12345678", "pa ss/wörd"], minimumLength: 6))
        for url in ["https://x.example/cb?t=abcdefgh12345678", "https://x.example/pa%20ss%2Fw%C3%B6rd?q=1",
                    "https://x.example/plain", "abcdefgh12345678abcdefgh12345678"] {
            #expect(scrubber.scrubURL(url) == scrubber.scrub(url, marker: RedactionPolicy.urlMarker), "\(url)")
        }
        #expect(scrubber.scrubURL("https://x.example/cb?t=abcdefgh12345678") == "https://x.example/cb?t=%5BREDACTED%5D")
    }
}
