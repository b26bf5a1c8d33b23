import Foundation

/// One operation of a contract as checking needs it: where it lives, its parameters, and the schemas (as nodes of
/// the contract's ``SchemaProgram``) of its bodies by status and media type.
package struct ContractOperation: Sendable {
    /// The `operationId`, or `GET /users/{id}` when the document gives none.
    package var name: String
    package var method: String
    /// The path template as the document writes it (`/users/{id}`).
    package var template: String
    package var segments: [PathSegment]
    package var pathParameters: [String: Int] = [:]
    package var queryParameters: [QueryParameter] = []
    package var requestBody: RequestBody?
    package var responses: Responses = Responses()

    /// A path segment: text to equal, or a pattern with parameters (`{id}`, `{name}.json`).
    package enum PathSegment: Sendable, Equatable {
        case literal(String)
        /// Alternating pieces: literals and parameter names.
        case pattern([Piece])

        package enum Piece: Sendable, Equatable {
            case literal(String)
            case parameter(String)
        }

        /// The parameter values when `segment` fits, else nil.
        func match(_ segment: Substring) -> [(String, Substring)]? {
            switch self {
            case .literal(let text):
                return segment == text ? [] : nil
            case .pattern(let pieces):
                var rest = segment
                var values: [(String, Substring)] = []
                var index = 0
                while index < pieces.count {
                    switch pieces[index] {
                    case .literal(let text):
                        guard rest.hasPrefix(text) else { return nil }
                        rest = rest.dropFirst(text.count)
                    case .parameter(let name):
                        // Up to the next literal piece (or the segment's end): parameters never hold a `/`.
                        if index + 1 < pieces.count, case .literal(let next) = pieces[index + 1] {
                            guard let found = rest.range(of: next) else { return nil }
                            values.append((name, rest[..<found.lowerBound]))
                            rest = rest[found.lowerBound...]
                        } else {
                            values.append((name, rest))
                            rest = rest[rest.endIndex...]
                        }
                    }
                    index += 1
                }
                guard rest.isEmpty, values.allSatisfy({ !$0.1.isEmpty }) else { return nil }
                return values
            }
        }
    }

    package struct QueryParameter: Sendable {
        package var name: String
        package var required: Bool
        package var schema: Int?
    }

    package struct RequestBody: Sendable {
        package var required: Bool
        package var content: [MediaType]
    }

    /// A declared media type (`application/json`, `image/*`) and its schema's node, if it has one.
    package struct MediaType: Sendable {
        package var name: String
        package var schema: Int?
    }

    /// Declared responses: by exact status, by `2XX`-style range (keyed 1…5), and `default`.
    package struct Responses: Sendable {
        package var exact: [Int: [MediaType]] = [:]
        package var ranges: [Int: [MediaType]] = [:]
        package var fallback: [MediaType]?
        /// The documented statuses in document order, for "expected one of 200, 404".
        package var names: [String] = []

        /// The content declared for `status`: the exact code, else its range, else `default`.
        package func content(for status: Int) -> [MediaType]? {
            exact[status] ?? ranges[status / 100] ?? fallback
        }
    }

    /// How specific a template is, for choosing among several that fit a path: literal segments first, segment by
    /// segment (`/users/me` before `/users/{id}`).
    var specificity: [Int] {
        segments.map { if case .literal = $0 { 0 } else { 1 } }
    }
}
