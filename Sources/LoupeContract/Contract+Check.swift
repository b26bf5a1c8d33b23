import Foundation
import LoupeTrace

extension Contract {
    /// Checks one recorded exchange against the operation its method and path name: parameters, request body,
    /// status, response content type and body. An exchange with no response (a transport error) has only its
    /// request checked.
    public func check(_ exchange: TraceExchange) -> ContractVerdict {
        let components = URLComponents(string: exchange.url)
        let path = Self.path(components, url: exchange.url)
        let method = exchange.method.uppercased()
        let index: Int
        let pathValues: [(String, Substring)]
        switch match(method: method, path: path) {
        case .operation(let found, let values):
            index = found
            pathValues = values
        case .noPath:
            return ContractVerdict(operation: nil, unmatchedReason: "no path in the contract matches", findings: [])
        case .noMethod:
            return ContractVerdict(operation: nil, unmatchedReason: "the path has no \(method) operation", findings: [])
        }
        let operation = operations[index]
        var findings: [ContractFinding] = []
        checkParameters(operation, pathValues: pathValues, query: components?.queryItems ?? [], into: &findings)
        checkRequestBody(operation, exchange, into: &findings)
        if let status = exchange.status {
            checkResponse(operation, status: status, exchange, into: &findings)
        }
        return ContractVerdict(operation: operation.name, unmatchedReason: nil, findings: findings)
    }

    /// The operation an exchange's method and URL name (its `operationId`), without checking anything: what the
    /// inspector groups its metrics by. Nil when no operation matches.
    public func operationName(method: String, url: String) -> String? {
        guard case .operation(let index, _) = match(method: method.uppercased(), path: Self.path(URLComponents(string: url), url: url)) else {
            return nil
        }
        return operations[index].name
    }

    /// The URL's path as sent (percent-encoded), `/` for none; the whole text when it is no URL.
    private static func path(_ components: URLComponents?, url: String) -> String {
        components.map { $0.percentEncodedPath.isEmpty ? "/" : $0.percentEncodedPath } ?? url
    }

    private func checkParameters(_ operation: ContractOperation, pathValues: [(String, Substring)], query: [URLQueryItem],
                                 into findings: inout [ContractFinding]) {
        for (name, value) in pathValues {
            guard let schema = operation.pathParameters[name] else { continue }
            let json = Self.parameterValue(String(value), schema: schema, program: program)
            for finding in program.check(json, against: schema) {
                findings.append(.init(kind: "parameter.\(finding.rule.rawValue)",
                                      message: "path parameter \(name): expected \(finding.expected), got \(finding.got)"))
            }
        }
        for parameter in operation.queryParameters {
            let values = query.filter { $0.name == parameter.name }.map { $0.value ?? "" }
            guard !values.isEmpty else {
                if parameter.required {
                    findings.append(.init(kind: "parameter.required", message: "query parameter \(parameter.name): expected a value, got none"))
                }
                continue
            }
            guard let schema = parameter.schema else { continue }
            let node = program.nodes[schema]
            let json: JSONValue
            if node.types.contains(.array) {
                // Form style, exploded (the default): `?tag=a&tag=b` is ["a", "b"].
                let items = node.items ?? schema
                json = .array(values.map { Self.parameterValue($0, schema: items, program: program) })
            } else {
                json = Self.parameterValue(values[values.count - 1], schema: schema, program: program)
            }
            for finding in program.check(json, against: schema) {
                let at = finding.path == "$" ? "" : String(finding.path.dropFirst())
                findings.append(.init(kind: "parameter.\(finding.rule.rawValue)",
                                      message: "query parameter \(parameter.name)\(at): expected \(finding.expected), got \(finding.got)"))
            }
        }
    }

    /// A parameter's text as the JSON value its schema reads: a number or boolean where the schema takes one and
    /// the text is one, else the string.
    static func parameterValue(_ text: String, schema: Int, program: SchemaProgram) -> JSONValue {
        var types = program.nodes[schema].types
        // A schema that only combines others (`allOf: [$ref]`) takes its types from the first of them.
        if types.isEmpty, let first = program.nodes[schema].allOf.first { types = program.nodes[first].types }
        if types.contains(.integer) || types.contains(.number),
           let value = JSONParser.parse(Data(text.utf8)), case .number = value {
            return value
        }
        if types.contains(.boolean), text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }

    private func checkRequestBody(_ operation: ContractOperation, _ exchange: TraceExchange, into findings: inout [ContractFinding]) {
        guard let body = operation.requestBody else { return }
        let data = exchange.requestBody
        guard let data, !data.data.isEmpty || data.size > 0 else {
            if body.required { findings.append(.init(kind: "request-body", message: "request body: expected a body, got none")) }
            return
        }
        checkBody(data, headers: exchange.requestHeaders, declared: body.content, side: "request", into: &findings)
    }

    private func checkResponse(_ operation: ContractOperation, status: Int, _ exchange: TraceExchange,
                               into findings: inout [ContractFinding]) {
        guard let content = operation.responses.content(for: status) else {
            let names = operation.responses.names.prefix(12).joined(separator: ", ")
            findings.append(.init(kind: "status", message: "status: expected \(names.isEmpty ? "none documented" : "one of " + names), got \(status)"))
            return
        }
        guard !content.isEmpty, let body = exchange.responseBody, !body.data.isEmpty else { return }
        checkBody(body, headers: exchange.responseHeaders, declared: content, side: "response", into: &findings)
    }

    /// The body's media type against the declared ones, then a JSON body against its schema.
    private func checkBody(_ body: TraceBody, headers: [TraceHeader], declared: [ContractOperation.MediaType], side: String,
                           into findings: inout [ContractFinding]) {
        let header = headers.last { $0.name.lowercased() == "content-type" }?.value ?? ""
        let type = header.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard let media = Self.media(type, in: declared) else {
            let names = declared.prefix(6).map(\.name).joined(separator: ", ")
            findings.append(.init(kind: "content-type", message: "\(side) content type: expected \(names), got \(type.isEmpty ? "none" : type)"))
            return
        }
        guard let schema = media.schema, Self.isJSON(type.isEmpty ? media.name : type) else { return }
        // A body cut at the store's cap is not the body that was sent: checking its start would only report the cut.
        guard !body.isTruncated else { return }
        guard let value = JSONParser.parse(body.data) else {
            findings.append(.init(kind: "\(side)-body.json", message: "\(side) body: expected JSON, got \(body.data.count) bytes that are not"))
            return
        }
        for finding in program.check(value, against: schema) {
            findings.append(.init(kind: "\(side)-body.\(finding.rule.rawValue)", message: finding.text))
        }
    }

    /// The declared media type `type` falls under: itself, else `type/*`, else `*/*`.
    static func media(_ type: String, in declared: [ContractOperation.MediaType]) -> ContractOperation.MediaType? {
        if let exact = declared.first(where: { $0.name == type }) { return exact }
        let major = type.split(separator: "/").first.map(String.init) ?? type
        return declared.first { $0.name == major + "/*" } ?? declared.first { $0.name == "*/*" }
    }

    /// `application/json`, `application/problem+json` and the like.
    static func isJSON(_ type: String) -> Bool {
        type == "application/json" || type.hasSuffix("+json")
    }
}
