import Foundation
@testable import LoupeTrace
import Testing
@testable import LoupeTestSupport

/// A JSON key without an escape is filtered from its own bytes, read once for both filters (DECISIONS 53): every
/// answer must be the one the filters gave the string `unescaped` made of the key, and every body must be redacted
/// exactly as a plain reading of its keys says.
@Suite struct JSONKeyProbeTests {
    static let pieces: [[UInt8]] = [
        Array("password".utf8), Array("Pass".utf8), Array("word".utf8), Array("-".utf8), Array("_".utf8),
        Array("token".utf8), Array("ACCESS".utf8), Array("x".utf8), Array("Authorization".utf8), Array("é".utf8),
        [0xFF], [0xC3], [0x80], Array("K".utf8), Array("\u{212A}".utf8), Array("1".utf8), Array(" ".utf8), [],
    ]

    static let policies: [RedactionPolicy] = [
        RedactionPolicy(), RedactionPolicy(jsonFieldNames: ["passwort", "x", "é-key"]), .none,
        RedactionPolicy(headerNames: ["X-Token"], jsonFieldNames: ["word"], includeDefaults: false),
    ]

    @Test("the bytes' probe answers as the filters did on the string made of them, for 6,000 random keys")
    func probeAnswersAsTheString() {
        var random = SeededGenerator(seed: 491)
        for _ in 0..<6_000 {
            let bytes = (0..<Int.random(in: 0...5, using: &random)).flatMap { _ in Self.pieces.randomElement(using: &random)! }
            let name = bytes.withUnsafeBufferPointer { JSONFieldRedactor.unescaped($0, from: 0, to: $0.count) }
            for policy in Self.policies {
                for names in [policy.jsonFieldNames, policy.headerNames] {
                    let probed = bytes.withUnsafeBufferPointer { names.mayContain(probe: NameFilter.probe($0)) }
                    #expect(probed == names.mayContain(name), "\(bytes)")
                }
            }
        }
    }

    /// A flat object's text and what redacting it by name must give, worked out from each key's plain meaning.
    static func object(_ fields: [(key: String, escapedKey: String, value: String)], policy: RedactionPolicy) -> (String, String) {
        let body = "{" + fields.map { "\"\($0.escapedKey)\": \($0.value)" }.joined(separator: ", ") + "}"
        let redacted = "{" + fields.map { field in
            let named = policy.jsonFieldNames.contains(field.key) || policy.headerNames.contains(field.key)
            return "\"\(field.escapedKey)\": \(named && field.value != "\"[REDACTED]\"" ? "\"[REDACTED]\"" : field.value)"
        }.joined(separator: ", ") + "}"
        return (body, redacted)
    }

    @Test("random flat objects, keys plain, escaped, cased, separated and non-ASCII: exactly the named values redacted")
    func bodiesRedactedByTheirKeys() throws {
        var random = SeededGenerator(seed: 4911)
        // (key, as written in the JSON text)
        let keys: [(String, String)] = [
            ("password", "password"), ("password", #"pass\u0077ord"#), ("Pass_Word", "Pass_Word"), ("ok", "ok"),
            ("id", "id"), ("Authorization", "Authorization"), ("authorization", #"author\u0069zation"#),
            ("x", "x"), ("é-key", "é-key"), ("é-key", #"\u00e9-key"#), ("--", "--"), ("", ""), ("a/b", #"a\/b"#),
            ("access_token", "access_token"), ("accessToken", "accessToken"), ("\u{212A}ey", "\u{212A}ey"),
            ("word", "word"), ("X-Token", "X-Token"), ("x_token", "x_token"), ("passwort", "passwort"),
        ]
        let values = [#""hunter22-secret""#, "1234567", "true", "null", #""[REDACTED]""#, #""Bearer abcdefgh1234""#, "7"]
        for policy in Self.policies {
            for _ in 0..<800 {
                let fields = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                    let key = keys.randomElement(using: &random)!
                    return (key: key.0, escapedKey: key.1, value: values.randomElement(using: &random)!)
                }
                let (body, expected) = Self.object(fields, policy: policy)
                var secrets = SecretCollector(minimumLength: 6)
                let redacted = Array(body.utf8).withUnsafeBufferPointer {
                    JSONFieldRedactor.redact($0, names: policy.jsonFieldNames, headerNames: policy.headerNames,
                                             collecting: &secrets)
                }
                #expect(redacted.map { String(decoding: $0, as: UTF8.self) } ?? body == expected, "\(body)")
            }
        }
    }

    @Test("a named key's secret is collected whether the key is escaped or not")
    func escapedAndPlainKeysCollectAlike() {
        for key in ["password", #"pass\u0077ord"#] {
            var secrets = SecretCollector(minimumLength: 6)
            let body = Array(#"{"\#(key)": "hunter22-secret", "n": 1}"#.utf8)
            let redacted = body.withUnsafeBufferPointer {
                JSONFieldRedactor.redact($0, names: RedactionPolicy().jsonFieldNames, headerNames: RedactionPolicy().headerNames,
                                         collecting: &secrets)
            }
            #expect(redacted.map { String(decoding: $0, as: UTF8.self) } == #"{"\#(key)": "[REDACTED]", "n": 1}"#)
            #expect(secrets.list == ["hunter22-secret"])
        }
    }
}
