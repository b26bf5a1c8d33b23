import LoupeTrace

/// One schema of a contract compiled for checking values: what OpenAPIKit's `JSONSchema` says, flattened once into
/// plain fields, so that a value is checked without walking OpenAPIKit's enums and contexts again for each value.
///
/// Other schemas are named by their index in the ``SchemaProgram`` (a `$ref` to a component is compiled once and
/// shared, which also lets a recursive schema refer to itself).
package struct SchemaNode: Sendable {
    /// The JSON types a value may have; empty means any.
    package var types: JSONTypes = []
    /// `enum` (and `const`): the value must equal one of these.
    package var allowed: [JSONValue]?
    package var format: StringFormat?
    package var minLength: Int?
    package var maxLength: Int?
    package var minimum: Bound?
    package var maximum: Bound?
    /// Object members: each property's schema, the required names, and what other members may be.
    package var properties: [String: Int] = [:]
    package var required: [String] = []
    package var additional: Additional = .any
    package var minProperties: Int?
    package var maxProperties: Int?
    /// Array elements.
    package var items: Int?
    package var minItems: Int?
    package var maxItems: Int?
    package var allOf: [Int] = []
    package var anyOf: [Int] = []
    package var oneOf: [Int] = []
    package var not: Int?

    package init() {}

    /// What members an object may have beyond its `properties`.
    package enum Additional: Sendable, Equatable {
        case any
        case forbidden
        case schema(Int)
    }

    /// A numeric bound: `minimum` or `exclusiveMinimum` (and the same for maximum).
    package struct Bound: Sendable, Equatable {
        package var value: Double
        package var exclusive: Bool
    }

    /// The string formats that are checked; every other format is accepted as any string.
    package enum StringFormat: String, Sendable {
        case dateTime = "date-time"
        case date
        case uuid
    }
}

/// A set of JSON types, as a schema's `type` names them (`integer` is a number with no fraction).
package struct JSONTypes: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let null = JSONTypes(rawValue: 1)
    package static let boolean = JSONTypes(rawValue: 2)
    package static let integer = JSONTypes(rawValue: 4)
    package static let number = JSONTypes(rawValue: 8)
    package static let string = JSONTypes(rawValue: 16)
    package static let array = JSONTypes(rawValue: 32)
    package static let object = JSONTypes(rawValue: 64)

    /// The names in schema order, for "expected string or null".
    package var names: String {
        let all: [(JSONTypes, String)] = [(.object, "object"), (.array, "array"), (.string, "string"), (.number, "number"),
                                          (.integer, "integer"), (.boolean, "boolean"), (.null, "null")]
        // `number` takes every integer: "expected number", not "number or integer".
        return all.filter { contains($0.0) && !($0.0 == .integer && contains(.number)) }.map(\.1).joined(separator: " or ")
    }
}
