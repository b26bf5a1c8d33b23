import Foundation
import HTTPTypes
import Loupe
import LoupeAsyncHTTPClient
import LoupeDemo
import LoupeQuery
import LoupeTrace
import LoupeFormats
import Testing

/// Secrets planted in every place a request can carry one, sent over real loopback to the demo's `/echo` (which
/// reflects the whole request in its JSON body and `X-Echo-*` headers), recorded into a real SQLite file: no
/// secret, in any encoding, may be found in the file, its `-wal`, a HAR export, `curl` output or `list`/`show`.
@Suite struct RedactionIntegrationTests {
    struct StaticToken: TokenProvider {
        let token: String
        func currentCredential() async throws -> Credential { Credential(token: token) }
        func refresh(_ rejected: Credential) async throws -> Credential { Credential(token: token) }
    }

    /// Distinct secrets, labelled so a failure never prints one.
    static let secrets: [(label: String, value: String)] = [
        ("header X-Api-Key", "HDR-k3y-\(tag)"),
        ("query api_key", "QRY-4p1-\(tag)"),
        ("query token with / + =", "QTK/pl+us=\(tag)"),
        ("JSON password", "PWD-j50n-\(tag)"),
        ("nested JSON client_secret", "CSC-n35t-\(tag)"),
        ("form password", "FRM-p4ss w0rd-\(tag)"),
        ("bearer token", "BRR-t0k3n-\(tag)"),
        ("basic password", "BSC-p4ss-\(tag)"),
        ("cookie value", "CKE-535510n-\(tag)"),
    ]
    static let tag = String(UUID().uuidString.prefix(8))
    static func secret(_ label: String) -> String { secrets.first { $0.label == label }!.value }

    /// The forms each secret must not take anywhere.
    static func forms(of value: String) -> [String] {
        let base64 = Data(value.utf8).base64EncodedString()
        let strict = value.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn:
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? value
        return [value, base64, base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .trimmingCharacters(in: ["="]), strict, strict.lowercased(), strict.replacingOccurrences(of: "%20", with: "+"),
                value.replacingOccurrences(of: "/", with: "\\/")]
    }

    static func expectClean(_ bytes: Data, _ place: String) {
        for (label, value) in secrets {
            for (index, form) in forms(of: value).enumerated() {
                #expect(bytes.range(of: Data(form.utf8)) == nil, "\(label) (form \(index)) found in \(place)")
            }
        }
        // The Basic header's base64 of user:password, and the pair itself.
        let pair = "ada:" + secret("basic password")
        #expect(bytes.range(of: Data(pair.utf8)) == nil, "basic user:password found in \(place)")
        #expect(bytes.range(of: Data(Data(pair.utf8).base64EncodedString().utf8)) == nil, "basic base64 found in \(place)")
    }

    @Test func noPlantedSecretSurvivesInTheStoreItsWALAHARCurlListOrShow() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("traces.sqlite").path
            try await withDemoServer { baseURL in
                let store = try SQLiteTraceStore(path: path)
                let inspector = NetworkTraceInspector(store: store)
                let transport = AsyncHTTPClientTransport()
                let plain = Client(baseURL: baseURL, transport: transport, observer: inspector)
                let bearer = Client(baseURL: baseURL, transport: transport, middlewares: [
                    BearerTokenMiddleware(provider: StaticToken(token: Self.secret("bearer token")))], observer: inspector)
                let basic = Client(baseURL: baseURL, transport: transport, middlewares: [
                    BasicAuthMiddleware(username: "ada", password: Self.secret("basic password"))], observer: inspector)

                func url(_ query: String = "") -> URL { URL(string: baseURL.absoluteString + "/echo" + query)! }
                let percentToken = Self.secret("query token with / + =")
                    .addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                var json = HTTPRequest(method: .post, url: url("?api_key=\(Self.secret("query api_key"))&token=\(percentToken)&page=2"))
                json.headerFields[HTTPField.Name("X-Api-Key")!] = Self.secret("header X-Api-Key")
                json.headerFields[.cookie] = "theme=dark; session=\(Self.secret("cookie value"))"
                json.headerFields[.contentType] = "application/json"
                let body = #"{"user":"ada","password":"\#(Self.secret("JSON password"))","#
                    + #""nested":{"list":[{"client_secret":"\#(Self.secret("nested JSON client_secret"))"}]}}"#
                let echoed = try await plain.execute(json, body: .string(body))
                #expect(echoed.status == .ok)
                #expect(String(decoding: echoed.body, as: UTF8.self).contains(Self.secret("JSON password")))  // really echoed

                var form = HTTPRequest(method: .post, url: url())
                form.headerFields[.contentType] = "application/x-www-form-urlencoded"
                let formSecret = Self.secret("form password").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                _ = try await plain.execute(form, body: .string("user=ada&password=\(formSecret)&remember=1"))
                _ = try await bearer.execute(HTTPRequest(method: .get, url: url("?page=3")))
                _ = try await basic.execute(HTTPRequest(method: .put, url: url()), body: .string("plain text body"))
                await inspector.shutdown()

                // The store is still open: its -wal holds the recent commits.
                var raw = Data()
                for suffix in ["", "-wal", "-shm"] { raw.append(FileManager.default.contents(atPath: path + suffix) ?? Data()) }
                #expect(raw.range(of: Data("/echo".utf8)) != nil)  // the exchanges are really there
                Self.expectClean(raw, "the store file or its -wal")

                let exchanges = try store.recent(limit: 10).compactMap { try store.exchange(id: $0.id) }
                #expect(exchanges.count == 4)
                #expect(exchanges.allSatisfy { String(decoding: $0.responseBody?.data ?? Data(), as: UTF8.self).contains("[REDACTED]") })
                Self.expectClean(try HARExporter().data(for: exchanges), "the HAR export")
                Self.expectClean(Data(exchanges.map(CurlExporter.command(for:)).joined(separator: "\n").utf8), "curl output")
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.withoutEscapingSlashes]
                Self.expectClean(try encoder.encode(exchanges), "show --json")
                Self.expectClean(try encoder.encode(try store.recent(limit: 10)), "list --json")
                try store.close()
                try await transport.shutdown()
            }
        }
    }
}
