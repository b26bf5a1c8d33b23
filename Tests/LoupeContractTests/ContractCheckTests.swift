import Foundation
import Loupe
import LoupeContract
import LoupeTrace
import Testing

/// Matching and validation against Fixtures/shop.yaml (OpenAPI 3.0: $refs, allOf, oneOf, nullable, enums,
/// formats) and the demo's Examples/openapi.yaml (3.1).
@Suite struct ContractCheckTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let shop: Contract = try! Contract(contentsOf: fixtures.appendingPathComponent("shop.yaml").path)

    static let orderID = "3f2b8c1e-5a6d-4e7f-8a9b-0c1d2e3f4a5b"
    static let order = """
        {"id": "\(orderID)", "status": "paid", "total": 12.5, "note": null, "createdAt": "2026-12-06T17:11:07.25Z",
         "deliverOn": "2026-12-24", "lines": [{"sku": "ABC-1", "qty": 2, "price": 6.25}],
         "customer": {"id": 7, "name": "Ada", "email": null, "referrer": {"id": 1, "name": "Bo"}}}
        """

    static func exchange(_ url: String, status: Int? = 200, type: String = "application/json", body: String? = nil) -> TraceExchange {
        exchange("GET", url, status: status, type: type, body: body)
    }

    static func exchange(_ method: String, _ url: String, status: Int? = 200, type: String = "application/json",
                         body: String? = nil, requestBody: String? = nil) -> TraceExchange {
        var exchange = TraceExchange(id: UUID(), operation: "", method: method, url: url, startedAt: Date(timeIntervalSince1970: 1_800_000_000),
                                     outcome: .success)
        exchange.status = status
        if let body {
            exchange.responseHeaders = [TraceHeader(name: "Content-Type", value: type)]
            exchange.responseBody = TraceBody(data: Data(body.utf8), size: body.utf8.count, isTruncated: false)
        }
        if let requestBody {
            exchange.requestHeaders = [TraceHeader(name: "content-type", value: "application/json; charset=utf-8")]
            exchange.requestBody = TraceBody(data: Data(requestBody.utf8), size: requestBody.utf8.count, isTruncated: false)
        }
        return exchange
    }

    static func findings(_ exchange: TraceExchange, _ contract: Contract = shop) -> [String] {
        contract.check(exchange).findings.map { "\($0.kind) \($0.message)" }
    }

    static let base = "https://api.example.com/v2"

    @Test func operationsMatchByMethodAndTemplateUnderTheServersBasePath() {
        #expect(Self.shop.check(Self.exchange("\(Self.base)/orders/\(Self.orderID)")).operation == "getOrder")
        #expect(Self.shop.check(Self.exchange("\(Self.base)/orders/\(Self.orderID)/payment")).operation == "getPayment")
        // A literal segment wins over a template, whichever the document lists first.
        #expect(Self.shop.check(Self.exchange("\(Self.base)/customers/me")).operation == "getMe")
        #expect(Self.shop.check(Self.exchange("\(Self.base)/customers/12")).operation == "getCustomer")
        #expect(Self.shop.check(Self.exchange("POST", "\(Self.base)/orders", status: 201)).operation == "createOrder")
        // The host is not part of the match: a recording against staging matches the same contract.
        #expect(Self.shop.check(Self.exchange("http://127.0.0.1:9/v2/orders?limit=3")).operation == "listOrders")
        let noBase = Self.shop.check(Self.exchange("\(Self.base.dropLast(3))/orders"))
        #expect(noBase.operation == nil && noBase.unmatchedReason == "no path in the contract matches")
        let noMethod = Self.shop.check(Self.exchange("DELETE", "\(Self.base)/orders"))
        #expect(noMethod.operation == nil && noMethod.unmatchedReason == "the path has no DELETE operation")
    }

    @Test func aConformingExchangeHasNoFindings() {
        #expect(Self.findings(Self.exchange("\(Self.base)/orders/\(Self.orderID)", body: Self.order)) == [])
        #expect(Self.findings(Self.exchange("\(Self.base)/orders?status=open&limit=100",
                                            body: "{\"items\": [\(Self.order)], \"next\": null}")) == [])
        #expect(Self.findings(Self.exchange("\(Self.base)/orders/\(Self.orderID)/payment", body: #"{"kind": "card", "last4": "4242"}"#)) == [])
        #expect(Self.findings(Self.exchange("POST", "\(Self.base)/orders", status: 201, body: Self.order,
                                            requestBody: #"{"lines": [{"sku": "ABC-1", "qty": 1}]}"#)) == [])
    }

    /// Each rule broken once, in a body that is otherwise the conforming order.
    @Test(arguments: [
        (#""total": 12.5"#, #""total": null"#, "response-body.type $.total: expected number, got null"),
        (#""price": 6.25"#, #""price": "6.25""#, #"response-body.type $.lines[0].price: expected number, got string "6.25""#),
        (#""qty": 2"#, #""qty": 2.5"#, "response-body.type $.lines[0].qty: expected integer, got number 2.5"),
        (#""status": "paid""#, #""status": "lost""#, #"response-body.enum $.status: expected one of "open", "paid", "shipped", got string "lost""#),
        (#""createdAt": "2026-12-06T17:11:07.25Z","#, "", "response-body.required $.createdAt: expected a required member, got none"),
        (#""note": null"#, #""note": null, "extra": 1"#, "response-body.additionalProperties $.extra: expected no member not in properties, got number 1"),
        ("2026-12-06T17:11:07.25Z", "2026-12-06 17:11", #"response-body.format $.createdAt: expected date-time, got string "2026-12-06 17:11""#),
        ("2026-12-24", "2026-02-30", #"response-body.format $.deliverOn: expected date, got string "2026-02-30""#),
        (#""id": "3f2b"#, #""id": "zz2b"#, #"response-body.format $.id: expected uuid, got string "zz2b8c1e-5a6d-4e7f-8a9b-0c1d2e3f4a5b""#),
        (#""total": 12.5"#, #""total": -1"#, "response-body.bounds $.total: expected at least 0, got -1"),
        (#""sku": "ABC-1""#, #""sku": "AB""#, "response-body.bounds $.lines[0].sku: expected at least 3 characters, got 2"),
        (#""qty": 2, "#, "", "response-body.required $.lines[0].qty: expected a required member, got none"),
        (#""name": "Bo""#, #""name": 5"#, "response-body.type $.customer.referrer.name: expected string, got number 5"),
        (#""email": null"#, #""email": false"#, "response-body.type $.customer.email: expected string or null, got boolean false"),
    ])
    func eachBrokenRuleIsOneFindingAtItsPath(original: String, mutated: String, expected: String) {
        let body = Self.order.replacingOccurrences(of: original, with: mutated)
        #expect(body != Self.order)
        #expect(Self.findings(Self.exchange("\(Self.base)/orders/\(Self.orderID)", body: body)) == [expected])
    }

    @Test func oneOfNeedsExactlyOneBranch() {
        let url = "\(Self.base)/orders/\(Self.orderID)/payment"
        #expect(Self.findings(Self.exchange(url, body: #"{"kind": "transfer", "iban": "DE00"}"#)) == [])
        #expect(Self.findings(Self.exchange(url, body: #"{"kind": "cash"}"#))
                == ["response-body.oneOf $: expected a value matching exactly one of 2 schemas, got 0 matched"])
    }

    @Test func statusAndContentTypeAreChecked() {
        let url = "\(Self.base)/orders/\(Self.orderID)"
        #expect(Self.findings(Self.exchange(url, status: 500, body: "oops"))
                == ["status status: expected one of 200, 404, got 500"])
        #expect(Self.findings(Self.exchange(url, type: "text/html; charset=utf-8", body: "<p>"))
                == ["content-type response content type: expected application/json, got text/html"])
        #expect(Self.findings(Self.exchange(url, body: "{\"id\":"))
                == ["response-body.json response body: expected JSON, got 6 bytes that are not"])
        // `default` and `4XX` cover what they cover, with their own schemas.
        #expect(Self.findings(Self.exchange("\(Self.base)/orders", status: 503, type: "application/problem+json", body: #"{"title": "down"}"#)) == [])
        #expect(Self.findings(Self.exchange("POST", "\(Self.base)/orders", status: 422, type: "application/problem+json", body: #"{"status": 422}"#,
                                            requestBody: #"{"lines": [{"sku": "ABC-1", "qty": 1}]}"#))
                == ["response-body.required $.title: expected a required member, got none"])
        // No response (a transport error): only the request is checked.
        #expect(Self.findings(Self.exchange(url, status: nil)) == [])
    }

    @Test func requestBodyAndParametersAreChecked() {
        #expect(Self.findings(Self.exchange("POST", "\(Self.base)/orders", status: 201, body: Self.order))
                == ["request-body request body: expected a body, got none"])
        #expect(Self.findings(Self.exchange("POST", "\(Self.base)/orders", status: 201, body: Self.order, requestBody: #"{"lines": []}"#))
                == ["request-body.bounds $.lines: expected at least 1 items, got 0"])
        #expect(Self.findings(Self.exchange("\(Self.base)/orders?limit=abc&status=lost", body: #"{"items": []}"#))
                == [#"parameter.enum query parameter status: expected one of "open", "paid", "shipped", got string "lost""#,
                    #"parameter.type query parameter limit: expected integer, got string "abc""#])
        #expect(Self.findings(Self.exchange("\(Self.base)/orders?limit=500", body: #"{"items": []}"#))
                == ["parameter.bounds query parameter limit: expected at most 100, got 500"])
        #expect(Self.findings(Self.exchange("\(Self.base)/orders/not-a-uuid", status: 404, type: "application/problem+json", body: #"{"title": "no"}"#))
                == [#"parameter.format path parameter orderId: expected uuid, got string "not-a-uuid""#])
        #expect(Self.findings(Self.exchange("\(Self.base)/customers/0", body: #"{"id": 0, "name": "x"}"#))
                == ["parameter.bounds path parameter id: expected at least 1, got 0"])
    }

    @Test func theDemoDocumentIsOpenAPI31WithTypeArraysForNull() throws {
        let path = Self.fixtures.appendingPathComponent("../../../Examples/openapi.yaml").standardized.path
        let demo = try Contract(contentsOf: path)
        #expect(demo.operationCount >= 5)
        #expect(demo.check(Self.exchange("http://127.0.0.1:8080/users/1", body: #"{"id": 1, "name": "Ada"}"#)).operation == "getUser")
        let nullable = try Contract(data: Data("""
            {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {"responses": {"200": {
              "description": "d", "content": {"application/json": {"schema": {"type": "object", "properties": {
                "n": {"type": ["string", "null"]}, "k": {"type": "string"}}}}}}}}}}}
            """.utf8))
        #expect(Self.findings(Self.exchange("http://x/a", body: #"{"n": null}"#), nullable) == [])
        #expect(Self.findings(Self.exchange("http://x/a", body: #"{"k": null}"#), nullable) == ["response-body.type $.k: expected string, got null"])
        #expect(nullable.check(Self.exchange("http://x/a")).operation == "GET /a")
    }

    /// Schemas that refer to themselves without descending end, and one that would branch 2^depth times stops at
    /// the step limit instead of hanging.
    @Test func selfReferringSchemasEnd() throws {
        let contract = try Contract(data: Data("""
            openapi: 3.1.0
            info: {title: t, version: '1'}
            paths:
              /a: {get: {responses: {'200': {description: d, content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}}}}
              /b: {get: {responses: {'200': {description: d, content: {application/json: {schema: {$ref: '#/components/schemas/B'}}}}}}}
            components:
              schemas:
                A: {oneOf: [{$ref: '#/components/schemas/A'}, {$ref: '#/components/schemas/A'}]}
                B: {allOf: [{$ref: '#/components/schemas/B'}, {type: object}]}
            """.utf8))
        _ = Self.findings(Self.exchange("http://x/a", body: "{}"), contract)
        #expect(Self.findings(Self.exchange("http://x/b", body: "1"), contract) == ["response-body.type $: expected object, got number 1"])
    }

    @Test(arguments: [
        ("openapi: [", "not an OpenAPI document"),
        ("title: no version\n", "not an OpenAPI document (no `openapi` version)"),
        ("openapi: 2.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n", "OpenAPI 2.0.0 is not supported"),
        ("{\"openapi\": \"3.1.0\", \"paths\": {}}", "info"),
    ])
    func badDocumentsAreOneLineErrors(text: String, expected: String) {
        do {
            _ = try Contract(data: Data(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func theReportFoldsPerOperationAndKind() {
        var report = DriftReport(contract: Self.shop)
        let good = Self.exchange("\(Self.base)/orders/\(Self.orderID)", body: Self.order)
        var bad = Self.exchange("\(Self.base)/orders/\(Self.orderID)", body: Self.order.replacingOccurrences(of: "12.5", with: "null"))
        report.add(Self.shop.check(good), exchange: good, reference: "#1")
        report.add(Self.shop.check(bad), exchange: bad, reference: "#2")
        bad.startedAt += 60
        report.add(Self.shop.check(bad), exchange: bad, reference: "#3")
        let lost = Self.exchange("\(Self.base)/nowhere")
        report.add(Self.shop.check(lost), exchange: lost, reference: "#4")
        #expect(report.checked == 3 && report.drifting == 2 && report.unmatchedCount == 1)
        let row = report.operations.first { $0.name == "getOrder" }
        #expect(row?.checked == 3 && row?.drifting == 2)
        let kinds = row?.kinds ?? []
        #expect(kinds.map(\.kind) == ["response-body.type"] && kinds.map(\.count) == [2])
        #expect(kinds.first?.firstSeen == good.startedAt && kinds.first?.lastSeen == bad.startedAt)
        #expect(kinds.first?.example == "#2" && kinds.first?.message == "$.total: expected number, got null")
        let unmatched = report.unmatched.map { "\($0.request) \($0.reason) ×\($0.count) \($0.example)" }
        #expect(unmatched == ["GET /v2/nowhere no path in the contract matches ×1 #4"])
        #expect(report.drifts(ofKinds: nil) && report.drifts(ofKinds: ["response-body"]) && !report.drifts(ofKinds: ["status", "parameter"]))
    }
}
