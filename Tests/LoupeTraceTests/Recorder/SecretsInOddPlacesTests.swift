import Foundation
import HTTPTypes
import Loupe
import LoupeQuery
import LoupeTesting
import LoupeTrace
import LoupeFormats
import Testing
@testable import LoupeTestSupport

/// Secrets a hostile run found in the store and the HAR export (issue 26, item 9), and the cases of the round of
/// attacks that followed: each is recorded into a real SQLite file through the recorder, and the file's bytes,
/// `-wal` included, must not hold the secret in any form.
@Suite("Secrets in odd places")
struct SecretsInOddPlacesTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// Records one request/response through a client into a SQLite store, closes it, and returns the file's bytes
    /// (main file, `-wal`, `-shm`) and the stored exchange.
    func record(_ request: HTTPRequest, body: String? = nil, response: ScriptedTransport.Step,
                policy: RedactionPolicy = RedactionPolicy()) async throws -> (bytes: Data, trace: TraceExchange) {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("traces.sqlite")
        let store = try SQLiteTraceStore(path: path, bounds: nil)
        let inspector = NetworkTraceInspector(store: store, configuration: .init(redaction: policy))
        let id = UUID()
        let client = Fixture.client([response], observer: inspector, ids: [id])
        _ = try? await client.execute(request, body: body.map { .string($0) }, options: RequestOptions(operation: "attack"))
        await inspector.shutdown()
        let trace = try #require(try store.exchange(id: id))
        try store.close()
        var bytes = Data()
        for suffix in ["", "-wal", "-shm", "-journal"] {
            bytes.append(FileManager.default.contents(atPath: path + suffix) ?? Data())
        }
        return (bytes, trace)
    }

    func expectAbsent(_ secret: String, in bytes: Data, sourceLocation: SourceLocation = #_sourceLocation) {
        for form in [secret, Data(secret.utf8).base64EncodedString()] {
            #expect(bytes.range(of: Data(form.utf8)) == nil, "\(form) is in the store file", sourceLocation: sourceLocation)
        }
    }

    // MARK: Item 9

    @Test("a multipart part named password is redacted")
    func multipartPassword() async throws {
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nada\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nMP-s3cret-1122\r\n--XyZ--\r\n"
        let request = Fixture.request("https://api.example.test/login", method: .post,
                                      headers: [.contentType: "multipart/form-data; boundary=XyZ"])
        let (bytes, trace) = try await record(request, body: body, response: .status(200, body: Data("saw MP-s3cret-1122".utf8)))
        expectAbsent("MP-s3cret-1122", in: bytes)
        let stored = String(decoding: trace.requestBody?.data ?? Data(), as: UTF8.self)
        #expect(stored.contains("name=\"password\"\r\n\r\n[REDACTED]\r\n--XyZ--"))
        #expect(stored.contains("\r\n\r\nada\r\n"))
    }

    @Test("a form body sent without a Content-Type is redacted as a form when it parses as one")
    func untypedForm() async throws {
        let request = Fixture.request("https://api.example.test/login", method: .post)
        let (bytes, trace) = try await record(request, body: "user=ada&password=UF-s3cret-3344",
                                              response: .status(204))
        expectAbsent("UF-s3cret-3344", in: bytes)
        #expect(trace.requestBody?.data == Data("user=ada&password=%5BREDACTED%5D".utf8))
        // Prose is not a form.
        let prose = RedactionPolicy().redact(body: Data("the password=hunter2 is weak".utf8), contentType: nil)
        #expect(prose == Data("the password=hunter2 is weak".utf8))
    }

    @Test("a JSON field named like a credential header is redacted, and its token scrubbed elsewhere")
    func jsonAuthorizationField() async throws {
        let request = Fixture.request("https://api.example.test/proxy", method: .post, headers: [.contentType: "application/json"])
        let body = #"{"headers":{"Authorization":"Bearer JA-tok-556677","x-api-key":"XK-998877aa"}}"#
        let (bytes, trace) = try await record(request, body: body,
                                              response: .status(200, body: Data("token JA-tok-556677 ok".utf8)))
        expectAbsent("JA-tok-556677", in: bytes)
        expectAbsent("XK-998877aa", in: bytes)
        #expect(trace.requestBody?.data == Data(#"{"headers":{"Authorization":"[REDACTED]","x-api-key":"[REDACTED]"}}"#.utf8))
    }

    @Test("an OAuth code is redacted beside state or redirect_uri and on a redirect target; code_verifier always")
    func oauthCode() async throws {
        let policy = RedactionPolicy()
        #expect(policy.redact(url: "https://app.test/cb?code=OC-abc12345&state=xyz")
            == "https://app.test/cb?code=%5BREDACTED%5D&state=xyz")
        #expect(policy.redact(url: "https://shop.test/items?code=SKU-123456") == "https://shop.test/items?code=SKU-123456")
        #expect(policy.redact(url: "https://idp.test/token?code_verifier=CV-0123456789")
            == "https://idp.test/token?code_verifier=%5BREDACTED%5D")
        let tokenRequest = "grant_type=authorization_code&code=OC-tok-778899&redirect_uri=https%3A%2F%2Fapp.test%2Fcb&code_verifier=CV-998877665544"
        let request = Fixture.request("https://idp.test/token", method: .post,
                                      headers: [.contentType: "application/x-www-form-urlencoded"])
        let (bytes, _) = try await record(request, body: tokenRequest, response: .status(400, body: Data("bad code OC-tok-778899".utf8)))
        expectAbsent("OC-tok-778899", in: bytes)
        expectAbsent("CV-998877665544", in: bytes)
        // A redirect target: the code alone is enough.
        let (redirected, trace) = try await record(
            Fixture.request("https://idp.test/authorize"),
            response: .status(302, headers: [.location: "https://app.test/cb?code=RC-code-13579"]))
        expectAbsent("RC-code-13579", in: redirected)
        #expect(trace.responseHeaders.first { $0.name == "Location" }?.value == "https://app.test/cb?code=%5BREDACTED%5D")
    }

    @Test("a Location header's token, absolute or relative, is redacted by name and scrubbed from the body")
    func locationToken() async throws {
        let (bytes, trace) = try await record(
            Fixture.request("https://api.example.test/start"),
            response: .status(302, headers: [.location: "/next?access_token=LT-loc-24680",
                                             HTTPField.Name("Link")!: "<https://x.test/?token=LK-link-11223>; rel=next"],
                              body: Data("Redirecting to the page with LT-loc-24680".utf8)))
        expectAbsent("LT-loc-24680", in: bytes)
        expectAbsent("LK-link-11223", in: bytes)
        #expect(trace.responseHeaders.first { $0.name == "Location" }?.value == "/next?access_token=%5BREDACTED%5D")
    }

    @Test("a redirect hop's URL noted on the attempt is redacted and its token scrubbed from the final body")
    func redirectHop() async throws {
        let raw = TraceExchange(
            id: UUID(), operation: "GET /start", method: "GET", url: "https://api.example.test/start",
            startedAt: Self.start, outcome: .success, status: 200,
            responseBody: TraceBody(data: Data(#"{"you_sent":"RH-hop-97531"}"#.utf8), size: 27, isTruncated: false),
            attempts: [TraceAttempt(number: 1, startedAt: Self.start,
                                    notes: ["redirect": "https://api.example.test/final?access_token=RH-hop-97531"])])
        let redacted = RedactionPolicy().redact(exchange: raw)
        #expect(redacted.attempts[0].notes["redirect"] == "https://api.example.test/final?access_token=%5BREDACTED%5D")
        #expect(redacted.responseBody?.data == Data(#"{"you_sent":"[REDACTED]"}"#.utf8))
    }

    // MARK: A further round of attacks

    @Test("URLs quoted in a JSON body (escaped slashes too), an error and a fragment are redacted by name")
    func urlsInText() async throws {
        let body = #"{"next":"https:\/\/cdn.test\/f?sig=SG-sig-864200&x=1","other":"see https://u:UP-pass-7531@db.test/x"}"#
        let (bytes, trace) = try await record(
            Fixture.request("https://api.example.test/files"),
            response: .status(200, headers: [.contentType: "application/json"], body: Data(body.utf8)))
        expectAbsent("SG-sig-864200", in: bytes)
        expectAbsent("UP-pass-7531", in: bytes)
        let stored = String(decoding: trace.responseBody?.data ?? Data(), as: UTF8.self)
        #expect(stored.contains(#"https:\/\/cdn.test\/f?sig=%5BREDACTED%5D&x=1"#))
        let policy = RedactionPolicy()
        #expect(policy.redact(url: "https://app.test/cb#access_token=FR-frag-55555&token_type=bearer")
            == "https://app.test/cb#access_token=%5BREDACTED%5D&token_type=bearer")
        #expect(policy.redact(text: "GET https://a.test/x?api_key=AK-1234567 failed: reset")
            == "GET https://a.test/x?api_key=%5BREDACTED%5D failed: reset")
    }

    @Test("a token given as a URL's user name is redacted where the URL is quoted; a short user name is kept")
    func tokenAsUserName() {
        let policy = RedactionPolicy()
        #expect(policy.redact(text: "clone https://ghp_Ab12Cd34Ef56Gh78@git.test/x.git failed")
            == "clone https://%5BREDACTED%5D@git.test/x.git failed")
        #expect(policy.redact(text: "see ssh://git@git.test/x") == "see ssh://git@git.test/x")
        let url = "https://ghp_Ab12Cd34Ef56Gh78@git.test/x"
        #expect(!policy.redact(text: "GET \(url) failed: ghp_Ab12Cd34Ef56Gh78 refused", about: url).contains("ghp_Ab12"))
    }

    @Test("a HAR's postData.params and queryString redact an OAuth code beside redirect_uri, and a multipart JSON part")
    func harParamsAndMultipartJSON() throws {
        let har = #"""
            {"log":{"version":"1.2","entries":[{"startedDateTime":"2024-01-01T00:00:00.000Z","time":1,
              "request":{"method":"POST","url":"https://idp.test/token","headers":[],"cookies":[],
                "queryString":[{"name":"code","value":"QS-code-24682468"},{"name":"state","value":"s"}],
                "postData":{"mimeType":"application/x-www-form-urlencoded","text":"",
                  "params":[{"name":"code","value":"PD-code-13571357"},{"name":"redirect_uri","value":"https://app.test/cb"}]}},
              "response":{"status":200,"headers":[],"content":{"size":0,"mimeType":"text/plain",
                "text":"codes QS-code-24682468 PD-code-13571357"}}}]}}
            """#
        let result = try HARRedactor.redact(Data(har.utf8), policy: RedactionPolicy())
        let text = String(decoding: result.data, as: UTF8.self)
        #expect(!text.contains("QS-code-24682468") && !text.contains("PD-code-13571357"))
        let body = "--B\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n"
            + #"{"client_secret":"MJ-secret-97979797"}"# + "\r\n--B--\r\n"
        let redacted = RedactionPolicy().redact(body: Data(body.utf8), contentType: "multipart/form-data; boundary=B")
        #expect(String(decoding: redacted, as: UTF8.self).contains(#"{"client_secret":"[REDACTED]"}"#))
    }

    @Test("an imported HAR is scrubbed by value too: a header's token echoed in the body and URLs in text")
    func importScrubsByValue() throws {
        let har = #"""
            {"log":{"version":"1.2","entries":[{"startedDateTime":"2024-01-01T00:00:00.000Z","time":1,
              "request":{"method":"GET","url":"https://api.test/me","headers":[{"name":"Authorization","value":"Bearer IM-tok-12345678"}]},
              "response":{"status":500,"headers":[{"name":"Location","value":"/next?access_token=IM-loc-87654321"}],
                "content":{"size":10,"mimeType":"text/plain","text":"you sent IM-tok-12345678, see https://x.test/?api_key=IM-key-99887766"}}}]}}
            """#
        let exchange = try #require(try HARImporter().exchanges(from: Data(har.utf8)).first)
        let text = "\(exchange)" + String(decoding: exchange.responseBody?.data ?? Data(), as: UTF8.self)
        for secret in ["IM-tok-12345678", "IM-loc-87654321", "IM-key-99887766"] { #expect(!text.contains(secret), "\(secret)") }
        // A policy that redacts nothing leaves them all.
        let clear = try #require(try HARImporter(redaction: .none).exchanges(from: Data(har.utf8)).first)
        let clearBody = String(decoding: clear.responseBody?.data ?? Data(), as: UTF8.self)
        #expect(clearBody.contains("IM-tok-12345678"))
    }

    @Test("Bearer and Basic credentials written in free text are redacted; prose is not")
    func authSchemesInText() {
        let policy = RedactionPolicy()
        #expect(policy.redact(text: "retrying with Bearer eyJhbGciOi.J9x-Tok") == "retrying with Bearer [REDACTED]")
        let basic = Data("ada:BA-pass-4242".utf8).base64EncodedString()
        #expect(policy.redact(text: "sent Basic \(basic)") == "sent Basic [REDACTED]")
        #expect(policy.redact(text: "basic usage of bearer tokens") == "basic usage of bearer tokens")
    }

    @Test("a Basic header's decoded password, a cookie value and a Set-Cookie value are scrubbed wherever echoed")
    func credentialsByValue() async throws {
        let basic = Data("ada:BV-pw-86420".utf8).base64EncodedString()
        let request = Fixture.request("https://api.example.test/me",
                                      headers: [.authorization: "Basic \(basic)", .cookie: "sid=CK-sid-314159; theme=dark"])
        let echo = #"{"password":"x","echo":["BV-pw-86420","CK-sid-314159"]}"#
        let (bytes, _) = try await record(request, response: .status(
            200, headers: [.contentType: "application/json", .setCookie: "next=SC-next-271828; Path=/"],
            body: Data((echo + " SC-next-271828").utf8)))
        for secret in ["BV-pw-86420", "CK-sid-314159", "SC-next-271828"] { expectAbsent(secret, in: bytes) }
    }
}
