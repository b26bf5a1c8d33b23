import Foundation
import HTTPTypes
import LoupeTrace
import Testing

@Suite("Redaction by name: defaults and configuration")
struct RedactionDefaultsTests {
    let marker = RedactionPolicy.marker

    @Test("the default header list covers common credential headers in any case or separator style",
          arguments: ["Authorization", "proxy-authorization", "COOKIE", "Set-Cookie", "X-Api-Key", "x_api_key",
                      "X-API-KEY", "Api-Key", "X-Auth-Token", "X-Amz-Security-Token", "X-CSRF-Token", "X-Access-Token",
                      "X-Goog-Api-Key", "Private-Token", "X-Vault-Token", "Ocp-Apim-Subscription-Key"])
    func defaultHeaders(name: String) {
        let redacted = RedactionPolicy().redact(headers: [TraceHeader(name: name, value: "v-0123456789")])
        #expect(redacted == [TraceHeader(name: name, value: marker)])
    }

    @Test("a name list answers exactly as its normalized names say, whatever its quick filter turns away")
    func namesAnswerExactly() {
        let lists = [RedactionPolicy.defaultHeaderNames, RedactionPolicy.defaultQueryItemNames, RedactionPolicy.defaultFieldNames,
                     RedactionNames(["\u{212A}ey", "émail", "x"])]
        var candidates = ["", "-", "__", "ok", "id", "name", "Content-Type", "traceparent", "\u{212A}EY", "KEY", "Émail",
                          "x", "X_", "-x-", "xx", "tokens", "passwordx", "a\u{0}b"]
        for list in lists {
            for name in list {
                candidates += [name, name.uppercased(), name.lowercased(), name.replacingOccurrences(of: "_", with: "-"),
                               "-" + name + "_", String(name.dropFirst()), String(name.dropLast()), name + "s", "x" + name]
            }
        }
        for list in lists {
            let normalized = Set(list.map { RedactionNames.normalized($0) })
            for candidate in candidates {
                #expect(list.contains(candidate) == normalized.contains(RedactionNames.normalized(candidate)), "\(candidate)")
            }
        }
    }

    @Test("ordinary headers are kept", arguments: ["Accept", "Content-Type", "User-Agent", "X-Request-Id", "Traceparent"])
    func ordinaryHeaders(name: String) {
        let header = TraceHeader(name: name, value: "v-0123456789")
        #expect(RedactionPolicy().redact(headers: [header]) == [header])
    }

    @Test("the default query item list covers tokens, keys, passwords and presigned-URL signatures",
          arguments: ["api_key", "apikey", "API-KEY", "token", "access_token", "accessToken", "refresh_token", "id_token",
                      "password", "passwd", "secret", "client_secret", "signature", "sig", "X-Amz-Signature",
                      "X-Amz-Credential", "X-Amz-Security-Token", "auth", "key"])
    func defaultQueryItems(name: String) {
        let url = "https://h.test/p?page=2&\(name)=s3cr3t-value&q=x"
        #expect(RedactionPolicy().redact(url: url) == "https://h.test/p?page=2&\(name)=%5BREDACTED%5D&q=x")
    }

    @Test("`code` is not redacted by default (it names innocent things), but can be added")
    func codeIsOptIn() {
        let url = "https://h.test/cb?code=abc123def"
        #expect(RedactionPolicy().redact(url: url) == url)
        var policy = RedactionPolicy()
        policy.queryItemNames.insert("code")
        #expect(policy.redact(url: url) == "https://h.test/cb?code=%5BREDACTED%5D")
    }

    @Test("the default field list applies at any depth of JSON and in forms",
          arguments: ["password", "secret", "token", "access_token", "refreshToken", "id_token", "client_secret",
                      "api_key", "apiKey", "private_key", "passphrase", "aws_secret_access_key"])
    func defaultFields(name: String) {
        let json = Data(#"{"user":"ada","deep":[{"x":{"\#(name)":"s3cr3t-value"}}]}"#.utf8)
        let redacted = String(decoding: RedactionPolicy().redact(body: json, contentType: "application/json"), as: UTF8.self)
        #expect(redacted == #"{"user":"ada","deep":[{"x":{"\#(name)":"[REDACTED]"}}]}"#)
        let form = Data("user=ada&\(name)=s3cr3t-value".utf8)
        let redactedForm = RedactionPolicy().redact(body: form, contentType: "application/x-www-form-urlencoded")
        #expect(String(decoding: redactedForm, as: UTF8.self) == "user=ada&\(name)=%5BREDACTED%5D")
    }

    @Test("JSON and form bodies are redacted by one list: the field names, the query item names and the header names",
          arguments: ["sig", "signature", "auth", "jwt", "cookie", "x-api-key", "password", "otp"])
    func oneListForJSONAndForms(name: String) {
        let json = Data(#"{"user":"ada","\#(name)":"v1"}"#.utf8)
        let redacted = String(decoding: RedactionPolicy().redact(body: json, contentType: "application/json"), as: UTF8.self)
        #expect(redacted == #"{"user":"ada","\#(name)":"[REDACTED]"}"#)
        let form = Data("user=ada&\(name)=v1".utf8)
        let redactedForm = RedactionPolicy().redact(body: form, contentType: "application/x-www-form-urlencoded")
        #expect(String(decoding: redactedForm, as: UTF8.self) == "user=ada&\(name)=%5BREDACTED%5D")
    }

    @Test("a stream message with JSON after a prefix is redacted by name, short values too (issue 44, item 5)")
    func jsonAfterAPrefixInAMessage() {
        var secrets = SecretCollector(minimumLength: 6)
        let socketIO = Data(#"42["login",{"password":"pw1","otp":"4821","room":"a"}]"#.utf8)
        #expect(String(decoding: RedactionPolicy().redact(message: socketIO, collecting: &secrets), as: UTF8.self)
            == #"42["login",{"password":"[REDACTED]","otp":"[REDACTED]","room":"a"}]"#)
        let word = Data(#"AUTH {"client_secret": "cs9Z7"}"#.utf8)
        #expect(String(decoding: RedactionPolicy().redact(message: word, collecting: &secrets), as: UTF8.self)
            == #"AUTH {"client_secret": "[REDACTED]"}"#)
        let plain = Data("hello \"world\": fine".utf8)
        #expect(RedactionPolicy().redact(message: plain, collecting: &secrets) == plain)
    }

    @Test("names are removed loosely, through the set or the convenience API")
    func removing() {
        var policy = RedactionPolicy()
        #expect(policy.headerNames.remove("x_api_key") == "X-Api-Key")
        let header = TraceHeader(name: "X-API-Key", value: "k-0123456789")
        #expect(policy.redact(headers: [header]) == [header])
        let lenient = RedactionPolicy().removing(headers: ["COOKIE"], queryItems: ["Key"], fields: ["token"])
        #expect(!lenient.headerNames.contains("cookie"))
        #expect(lenient.headerNames.contains("Authorization"))
        #expect(lenient.redact(url: "https://h.test/?key=abcdefgh") == "https://h.test/?key=abcdefgh")
        let body = Data(#"{"token":"t-0123456789"}"#.utf8)
        #expect(lenient.redact(body: body, contentType: nil) == body)
    }

    @Test("names are added through the set or the convenience API, and `includeDefaults: false` starts empty")
    func adding() {
        let policy = RedactionPolicy(includeDefaults: false).adding(headers: ["X-Tenant"], queryItems: ["ref"], fields: ["ssn"])
        #expect(policy.headerNames == ["x-tenant"])
        #expect(policy.redact(headers: [TraceHeader(name: "Authorization", value: "Bearer x")]).first?.value == "Bearer x")
        #expect(policy.redact(headers: [TraceHeader(name: "X_TENANT", value: "t")]).first?.value == marker)
        #expect(policy.redact(url: "https://h.test/?REF=1") == "https://h.test/?REF=%5BREDACTED%5D")
        #expect(policy.redact(body: Data(#"{"SSN":"123-45-6789"}"#.utf8), contentType: nil) == Data(#"{"SSN":"[REDACTED]"}"#.utf8))
    }

    @Test("RedactionNames behaves as a set of loose names")
    func names() {
        var names: RedactionNames = ["Access-Token"]
        #expect(names.contains("ACCESS_TOKEN") && names.contains("accesstoken") && names.contains("accessToken"))
        #expect(names.insert("access_token").inserted == false)
        #expect(names.count == 1 && Array(names) == ["Access-Token"])
        names.formUnion(["b", "c"])
        #expect(names.subtracting(["B"]) == ["access-token", "c"])
        #expect(names.isSuperset(of: ["C"]))
        #expect(RedactionNames.normalized("X-Api_KEY") == "xapikey")
        // ASCII takes a byte fast path; anything else the Unicode one, and both agree on the ASCII part.
        #expect(RedactionNames.normalized("Zz-@[`{_09") == "zz@[`{09")
        #expect(RedactionNames.normalized("ÜBER-Token_Ä") == "übertokenä")
        #expect(RedactionNames.normalized("x-api-key".dropFirst(2)) == "apikey")
        #expect(RedactionNames.normalized("") == "")
    }

    @Test("JSON keys written with escapes, and values that are objects, are redacted; other bytes are kept")
    func jsonDetails() {
        let body = Data(#"{ "pass\u0077ord" : {"a": ["x", 1]}, "keep":  "yes", "token": null, "n": 5 }"#.utf8)
        let redacted = RedactionPolicy().redact(body: body, contentType: nil)
        #expect(String(decoding: redacted, as: UTF8.self)
            == #"{ "pass\u0077ord" : "[REDACTED]", "keep":  "yes", "token": "[REDACTED]", "n": 5 }"#)
        // Nesting far deeper than any parser allows costs nothing and is still redacted.
        let deep = String(repeating: "[", count: 100_000) + #"{"secret":"s3cr3t-value"}"#
        let scanned = RedactionPolicy().redact(body: Data(deep.utf8), contentType: nil)
        #expect(!String(decoding: scanned, as: UTF8.self).contains("s3cr3t"))
    }

    @Test("redacting twice changes nothing more")
    func idempotent() {
        let policy = RedactionPolicy()
        let body = Data(#"{"password":"hunter22","list":[{"token":{"v":1}}]}"#.utf8)
        let once = policy.redact(body: body, contentType: nil)
        #expect(policy.redact(body: once, contentType: nil) == once)
        let url = policy.redact(url: "https://u:p@h.test/?token=abcdefgh&x=1")
        #expect(policy.redact(url: url) == url)
    }
}
