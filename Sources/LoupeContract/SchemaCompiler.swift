import Foundation
import LoupeTrace
import OpenAPIKit

/// Turns OpenAPIKit schemas into a ``SchemaProgram``: each schema once, each component schema once however many
/// `$ref`s name it (so recursive schemas end), `nullable` (3.0) and `type: [x, "null"]` (3.1) alike as `null` among
/// the allowed types.
package struct SchemaCompiler {
    private let components: OpenAPI.Components
    package private(set) var nodes: [SchemaNode] = []
    /// A component's node by its reference text (`#/components/schemas/User`).
    private var byReference: [String: Int] = [:]
    /// References that name nothing in the document: such a schema accepts anything, and the check says so once.
    package private(set) var unresolved: [String] = []

    package init(components: OpenAPI.Components) {
        self.components = components
    }

    /// The program holding every schema compiled so far.
    package var program: SchemaProgram { SchemaProgram(nodes: nodes) }

    /// The node checking `schema`.
    package mutating func compile(_ schema: JSONSchema) -> Int {
        if case .reference(let reference, _) = schema.value { return resolve(reference) }
        let index = nodes.count
        nodes.append(SchemaNode())
        nodes[index] = node(for: schema)
        return index
    }

    /// A schema given as a reference or inline (a parameter's).
    package mutating func compile(_ schema: Either<OpenAPI.Reference<JSONSchema>, JSONSchema>) -> Int {
        switch schema {
        case .a(let reference): return resolve(reference.jsonReference)
        case .b(let schema): return compile(schema)
        }
    }

    private mutating func resolve(_ reference: JSONReference<JSONSchema>) -> Int {
        let text = reference.absoluteString
        if let known = byReference[text] { return known }
        let index = nodes.count
        nodes.append(SchemaNode())
        byReference[text] = index
        guard let name = reference.name, let key = OpenAPI.ComponentKey(rawValue: name),
              case .internal = reference, let target = components.schemas[key] else {
            unresolved.append(text)
            return index
        }
        if case .reference(let next, _) = target.value {
            // A component that is only a reference: the node checks what it names.
            var alias = SchemaNode()
            alias.allOf = [resolve(next)]
            nodes[index] = alias
        } else {
            nodes[index] = node(for: target)
        }
        return index
    }

    private mutating func node(for schema: JSONSchema) -> SchemaNode {
        var node = SchemaNode()
        switch schema.value {
        case .null:
            node.types = .null
        case .boolean:
            node.types = .boolean
        case .number(_, let numeric):
            node.types = [.number, .integer]
            node.minimum = numeric.minimum.map { .init(value: $0.value, exclusive: $0.exclusive) }
            node.maximum = numeric.maximum.map { .init(value: $0.value, exclusive: $0.exclusive) }
        case .integer(_, let integer):
            node.types = .integer
            node.minimum = integer.minimum.map { .init(value: Double($0.value), exclusive: $0.exclusive) }
            node.maximum = integer.maximum.map { .init(value: Double($0.value), exclusive: $0.exclusive) }
        case .string(let core, let string):
            node.types = .string
            node.format = core.formatString.flatMap(SchemaNode.StringFormat.init(rawValue:))
            node.minLength = string.minLength > 0 ? string.minLength : nil
            node.maxLength = string.maxLength
        case .object(_, let object):
            node.types = .object
            for (name, property) in object.properties { node.properties[name] = compile(property) }
            node.required = object.requiredProperties
            switch object.additionalProperties {
            case nil, .a(true): node.additional = .any
            case .a(false): node.additional = .forbidden
            case .b(let schema): node.additional = .schema(compile(schema))
            }
            node.minProperties = object.minProperties > 0 ? object.minProperties : nil
            node.maxProperties = object.maxProperties
        case .array(_, let array):
            node.types = .array
            node.items = array.items.map { compile($0) }
            node.minItems = array.minItems > 0 ? array.minItems : nil
            node.maxItems = array.maxItems
        case .all(let schemas, _):
            node.allOf = schemas.map { compile($0) }
        case .one(let schemas, _):
            node.oneOf = schemas.map { compile($0) }
        case .any(let schemas, _):
            node.anyOf = schemas.map { compile($0) }
        case .not(let schema, _):
            node.not = compile(schema)
        case .reference(let reference, _):
            node.allOf = [resolve(reference)]
        case .fragment:
            break
        }
        if schema.nullable, !node.types.isEmpty { node.types.insert(.null) }
        node.allowed = schema.allowedValues?.map { Self.json($0.value) }
        return node
    }

    /// A value OpenAPIKit decoded (`enum` members) as Loupe's JSON tree.
    static func json(_ value: Any?) -> JSONValue {
        switch value {
        case nil, is NSNull: return .null
        case let nested as AnyCodable: return json(nested.value)
        case let bool as Bool: return .bool(bool)
        case let int as Int: return .number(JSONNumber(String(int)))
        case let double as Double:
            return .number(JSONNumber(double.isFinite && double == double.rounded() && abs(double) < 1e15
                                      ? String(Int64(double)) : String(double)))
        case let string as String: return .string(string)
        case let array as [Any?]: return .array(array.map { json($0) })
        case let object as [String: Any?]: return .object(JSONObject(object.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) }))
        default: return .string(String(describing: value!))
        }
    }
}
