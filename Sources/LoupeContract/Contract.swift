import Foundation
import LoupeTrace
import OpenAPIKit

/// An OpenAPI document compiled for checking recorded exchanges: its operations by method and path template (under
/// the servers' base paths), and every schema compiled once into a ``SchemaProgram``.
///
/// Built once per document; ``check(_:)`` is then a lookup and a walk of the bodies' JSON, with nothing of
/// OpenAPIKit's model kept.
public struct Contract: Sendable {
    /// The operations, most specific template first (`/users/me` before `/users/{id}`), grouped by segment count.
    let operations: [ContractOperation]
    private let bySegmentCount: [Int: [Int]]
    /// The servers' base paths (`/api/v1`), longest first; `""` when the document names no server path.
    let basePaths: [String]
    let program: SchemaProgram
    /// `$ref`s the document does not resolve (their schemas accept anything).
    public let unresolvedReferences: [String]

    /// Reads the document at `path` (JSON or YAML, OpenAPI 3.0 or 3.1).
    public init(contentsOf path: String) throws(ContractError) {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: ContractDocument.maximumBytes + 1) ?? Data()
        } catch {
            throw ContractError("cannot read: \((error as NSError).localizedDescription)")
        }
        try self.init(data: data)
    }

    /// Reads a document from its bytes.
    public init(data: Data) throws(ContractError) {
        try self.init(document: ContractDocument.decode(data))
    }

    init(document: OpenAPI.Document) {
        var compiler = SchemaCompiler(components: document.components)
        var operations: [ContractOperation] = []
        for route in document.routes {
            let item = route.pathItem
            for endpoint in item.endpoints {
                operations.append(Self.operation(endpoint, path: route.path, item: item, document: document, &compiler))
            }
        }
        operations.sort { $0.specificity.lexicographicallyPrecedes($1.specificity) }
        self.operations = operations
        bySegmentCount = Dictionary(grouping: operations.indices, by: { operations[$0].segments.count })
        var bases = Set(document.servers.map { Self.basePath($0) })
        if bases.isEmpty { bases = [""] }
        basePaths = bases.sorted { $0.count > $1.count }
        program = compiler.program
        unresolvedReferences = compiler.unresolved
    }

    /// How many operations the document declares.
    public var operationCount: Int { operations.count }

    /// The names of the document's operations, in document order of their templates' specificity.
    public var operationNames: [String] { operations.map(\.name) }

    // MARK: - Compiling

    private static func operation(_ endpoint: OpenAPI.PathItem.Endpoint, path: OpenAPI.Path, item: OpenAPI.PathItem,
                                  document: OpenAPI.Document, _ compiler: inout SchemaCompiler) -> ContractOperation {
        let method = endpoint.method.rawValue.uppercased()
        let template = path.rawValue.hasPrefix("/") ? path.rawValue : "/" + path.rawValue
        var operation = ContractOperation(
            name: endpoint.operation.operationId ?? "\(method) \(template)", method: method, template: template,
            segments: path.components.map(Self.segment))
        // The path item's parameters, then the operation's, which replace one of the same name and place.
        var parameters: [String: OpenAPI.Parameter] = [:]
        var order: [String] = []
        for either in item.parameters + endpoint.operation.parameters {
            guard let parameter = document.components[either] else { continue }
            let key = "\(parameter.location.rawValue) \(parameter.name)"
            if parameters.updateValue(parameter, forKey: key) == nil { order.append(key) }
        }
        for key in order {
            guard let parameter = parameters[key] else { continue }
            var schema: Int?
            if case .a(let context) = parameter.schemaOrContent { schema = compiler.compile(context.schema) }
            switch parameter.location {
            case .path:
                if let schema { operation.pathParameters[parameter.name] = schema }
            case .query:
                operation.queryParameters.append(.init(name: parameter.name, required: parameter.required, schema: schema))
            default:
                break
            }
        }
        if let either = endpoint.operation.requestBody, let request = document.components[either] {
            operation.requestBody = .init(required: request.required, content: Self.media(request.content, document.components, &compiler))
        }
        for (status, either) in endpoint.operation.responses {
            guard let response = document.components[either] else { continue }
            let content = Self.media(response.content, document.components, &compiler)
            operation.responses.names.append(status.rawValue)
            switch status.value {
            case .default: operation.responses.fallback = content
            case .status(let code): operation.responses.exact[code] = content
            case .range(let range): operation.responses.ranges[Int(String(range.rawValue.prefix(1))) ?? 0] = content
            }
        }
        return operation
    }

    private static func media(_ content: OpenAPI.Content.Map, _ components: OpenAPI.Components,
                              _ compiler: inout SchemaCompiler) -> [ContractOperation.MediaType] {
        content.map { type, either in
            let schema = components[either]?.schema
            return .init(name: type.typeAndSubtype.lowercased(), schema: schema.map { compiler.compile($0) })
        }
    }

    private static func segment(_ text: String) -> ContractOperation.PathSegment {
        guard text.contains("{") else { return .literal(text) }
        var pieces: [ContractOperation.PathSegment.Piece] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            if open > rest.startIndex { pieces.append(.literal(String(rest[..<open]))) }
            pieces.append(.parameter(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.literal(String(rest))) }
        return .pattern(pieces)
    }

    /// A server URL's path with its variables at their defaults, without a trailing `/`: `https://{host}/v{n}` with
    /// `n` defaulting to 2 gives `/v2`.
    static func basePath(_ server: OpenAPI.Server) -> String {
        var url = server.urlTemplate.rawValue
        for (name, variable) in server.variables { url = url.replacingOccurrences(of: "{\(name)}", with: variable.default) }
        var path = Substring(url)
        if let scheme = path.range(of: "://") {
            let afterHost = path[scheme.upperBound...]
            path = afterHost.firstIndex(of: "/").map { afterHost[$0...] } ?? ""
        } else if path.hasPrefix("//") {
            let afterHost = path.dropFirst(2)
            path = afterHost.firstIndex(of: "/").map { afterHost[$0...] } ?? ""
        }
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<query] }
        while path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    // MARK: - Matching

    /// The operation an exchange's method and URL path name, with its path parameters' values (percent-decoded).
    func match(method: String, path: String) -> Match {
        var pathFound = false
        for base in basePaths {
            guard path.hasPrefix(base) else { continue }
            let rest = path.dropFirst(base.count)
            guard rest.isEmpty || rest.hasPrefix("/") else { continue }
            let segments = rest.isEmpty || rest == "/" ? [] : rest.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            let decoded = segments.map { Substring($0.removingPercentEncoding ?? String($0)) }
            for index in bySegmentCount[decoded.count] ?? [] {
                let operation = operations[index]
                var values: [(String, Substring)] = []
                var fits = true
                for (segment, text) in zip(operation.segments, decoded) {
                    guard let found = segment.match(text) else { fits = false; break }
                    values += found
                }
                guard fits else { continue }
                pathFound = true
                if operation.method == method { return .operation(index, values) }
            }
        }
        return pathFound ? .noMethod : .noPath
    }

    enum Match {
        case operation(Int, [(String, Substring)])
        case noPath
        case noMethod
    }
}
