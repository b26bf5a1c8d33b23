import Foundation

/// The operation a GraphQL request carries, recognised by its body (a POST of `{"query": …}`, a batch array of
/// them, an Apollo persisted-query hash) or its URL (a GET with `?query=`): `query GetUser`, `mutation`,
/// `batch: query A, mutation B`, `persisted GetUser`.
///
/// The recorder names an exchange with it on its writer's task, off the request path, and only when the app gave
/// the request no name of its own (the endpoint's default `POST /graphql`): every reader (the list, `~op` and
/// `~gql`, `loupe stats`, the metrics screen) then reads the name from the store with no body to parse.
package enum GraphQLOperation {
    /// Bodies larger than this are not read for a name: a GraphQL request is a query text and its variables.
    package static let maximumBody = 256 << 10

    /// The name for a request, or nil when it is not a GraphQL request.
    package static func name(method: String, url: String, body: Data?) -> String? {
        if method == "GET" || body == nil || body?.isEmpty == true {
            guard method == "GET", url.contains("query=") || url.contains("extensions="),
                  let items = URLComponents(string: url)?.queryItems else { return nil }
            func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
            var object = JSONObject()
            if let query = item("query") { object["query"] = .string(query) }
            if let operation = item("operationName") { object["operationName"] = .string(operation) }
            if let extensions = item("extensions"), let value = JSONParser.parse(Data(extensions.utf8)) {
                object["extensions"] = value
            }
            return name(of: object)
        }
        guard method == "POST", let body, body.count <= maximumBody,
              let first = body.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }),
              first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        // Most JSON bodies are no GraphQL: a byte search finds that before anything is parsed.
        guard body.range(of: Data(#""query""#.utf8)) != nil || body.range(of: Data(#""persistedQuery""#.utf8)) != nil else { return nil }
        switch JSONParser.parse(body) {
        case .object(let object)?:
            return name(of: object)
        case .array(let elements)? where !elements.isEmpty:
            var names: [String] = []
            for element in elements {
                guard case .object(let object) = element, let name = name(of: object) else { return nil }
                names.append(name)
            }
            let shown = names.prefix(3).joined(separator: ", ")
            return "batch: " + shown + (names.count > 3 ? ", … (\(names.count))" : "")
        default:
            return nil
        }
    }

    /// Whether `operation` is a name this type gives (`query GetUser`, `mutation`, `batch: …`, `persisted …`): the
    /// list shows it beside the path, which is the same `/graphql` for every call.
    package static func isName(_ operation: String) -> Bool {
        for kind in ["query", "mutation", "subscription"] where operation.hasPrefix(kind) {
            if operation.count == kind.count || operation.dropFirst(kind.count).first == " " { return true }
        }
        return operation.hasPrefix("persisted ") || operation.hasPrefix("batch: ")
    }

    /// The first of the `errors` a GraphQL response carries (one response, or each of a batch's), or nil when it
    /// has none: such a response is an error even with status 200. Its message is cut at 200 characters.
    package static func errorMessage(in body: Data?) -> String? {
        guard let body, body.range(of: Data(#""errors""#.utf8)) != nil, let value = JSONParser.parse(body) else { return nil }
        func first(_ value: JSONValue) -> String? {
            guard case .object(let object) = value, case .array(let errors)? = object["errors"], let error = errors.first else {
                return nil
            }
            guard case .object(let fields) = error, case .string(let message)? = fields["message"] else { return "an error" }
            return message.count > 200 ? String(message.prefix(200)) + "…" : message
        }
        if case .array(let responses) = value { return responses.lazy.compactMap(first).first }
        return first(value)
    }

    /// One request object: `{"query", "operationName", "variables", "extensions"}`.
    static func name(of object: JSONObject) -> String? {
        var operationName: String?
        if case .string(let text)? = object["operationName"], !text.isEmpty { operationName = text }
        if case .string(let query)? = object["query"] {
            guard let (kind, name) = definition(in: query, named: operationName) else { return nil }
            return name.map { "\(kind) \($0)" } ?? kind
        }
        // Apollo's automatic persisted queries: a hash instead of the text.
        guard case .object(let extensions)? = object["extensions"], case .object(let persisted)? = extensions["persistedQuery"],
              case .string(let hash)? = persisted["sha256Hash"] else { return nil }
        return "persisted " + (operationName ?? String(hash.prefix(12)))
    }

    /// The operation `name` picks in a GraphQL document (its only one when nil): its type and its name, if any.
    /// A document that is no GraphQL (`{"query": "SELECT …"}`) gives nil.
    static func definition(in document: String, named wanted: String?) -> (String, String?)? {
        var tokens = Tokens(document.utf8)
        var first: (String, String?)?
        var depth = 0
        // Until a definition starts, anything but a keyword or `{` means the text is not GraphQL.
        var started = false
        while let token = tokens.next() {
            switch token {
            case "{":
                if depth == 0, !started {
                    // A selection set alone is an anonymous query (the shorthand form).
                    first = ("query", nil)
                    if wanted == nil { return first }
                }
                started = true
                depth += 1
            case "}":
                depth -= 1
                guard depth >= 0 else { return nil }
            case "query", "mutation", "subscription":
                guard depth == 0 else { break }
                started = true
                var name: String?
                if let next = tokens.peek(), let byte = next.utf8.first, byte == UInt8(ascii: "_") || (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A {
                    name = tokens.next()
                }
                if let wanted, name == wanted { return (token, name) }
                if first == nil { first = (token, name) }
                if wanted == nil { return first }
            case "fragment":
                if depth == 0 { started = true }
            default:
                if depth == 0, !started { return nil }
            }
        }
        return wanted == nil ? first : (first.map { ($0.0, wanted) })
    }

    /// GraphQL's lexical tokens, as far as finding definitions needs: names, punctuators; strings and comments
    /// skipped.
    struct Tokens {
        let bytes: [UInt8]
        var index = 0
        var peeked: String?

        init(_ text: String.UTF8View) {
            bytes = Array(text.prefix(maximumBody))
        }

        mutating func peek() -> String? {
            if peeked == nil { peeked = read() }
            return peeked
        }

        mutating func next() -> String? {
            if let peeked {
                self.peeked = nil
                return peeked
            }
            return read()
        }

        private mutating func read() -> String? {
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","):
                    index += 1
                case UInt8(ascii: "#"):
                    while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
                case UInt8(ascii: "\""):
                    index += 1
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                    index += 1
                    return "\"\""
                case UInt8(ascii: "_"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    let start = index
                    while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
                    return String(decoding: bytes[start..<index], as: UTF8.self)
                default:
                    index += 1
                    return String(UnicodeScalar(byte))
                }
            }
            return nil
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
        }
    }
}
