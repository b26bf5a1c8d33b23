import Foundation
import LoupeTrace

/// Compiled schemas (``SchemaCompiler``) and the walk that checks a ``JSONValue`` against one of them.
///
/// Two modes: reporting, which names each failing value (`$.items[3].price: expected number, got null`), and
/// matching, which stops at the first failure and builds no text (how `oneOf`/`anyOf` try their branches).
package struct SchemaProgram: Sendable {
    package let nodes: [SchemaNode]

    /// At most this many findings are kept per value checked: a list of 10,000 wrong elements says so in 20 lines.
    package static let findingLimit = 20

    /// At most this many schema nodes are visited per value checked; past it the rest of the value passes. A large
    /// body needs a few per member; a hostile document (`A: {oneOf: [$ref A, $ref A]}`) would need 2^depth.
    package static let stepLimit = 1_000_000

    /// The findings for `value` against node `root`, each at its JSON path under `$`.
    package func check(_ value: JSONValue, against root: Int) -> [SchemaFinding] {
        var walk = Walk(program: self, report: true)
        _ = walk.check(value, root)
        return walk.findings
    }

    /// Whether `value` satisfies node `root`.
    package func matches(_ value: JSONValue, _ root: Int) -> Bool {
        var walk = Walk(program: self, report: false)
        return walk.check(value, root)
    }

    private struct Walk {
        let program: SchemaProgram
        var report: Bool
        var findings: [SchemaFinding] = []
        var path: [PathPart] = []
        var depth = 0
        var steps = 0

        enum PathPart {
            case key(String)
            case index(Int)
        }

        mutating func fail(_ rule: SchemaFinding.Rule, _ expected: String, _ got: @autoclosure () -> String) -> Bool {
            if report, findings.count < SchemaProgram.findingLimit {
                // The same failure reached twice (a schema and an `allOf` of it) is one finding.
                let finding = SchemaFinding(rule: rule, path: Self.text(path), expected: expected, got: got())
                if !findings.contains(finding) { findings.append(finding) }
            }
            return false
        }

        mutating func check(_ value: JSONValue, _ index: Int) -> Bool {
            // Recursive schemas over a JSON tree end with the tree (the parser caps its depth); this guards a
            // schema that refers to itself without descending (`A: {allOf: [$ref A]}`).
            guard depth < 400, steps < SchemaProgram.stepLimit else { return true }
            depth += 1
            steps += 1
            defer { depth -= 1 }
            let node = program.nodes[index]
            var ok = true
            if !node.types.isEmpty, !Self.has(value, node.types) {
                return fail(.type, node.types.names, Self.describe(value))
            }
            if let allowed = node.allowed, !allowed.contains(value) {
                let list = allowed.prefix(8).map { $0.compactText(limit: 40) }.joined(separator: ", ")
                return fail(.enumeration, "one of \(list)\(allowed.count > 8 ? ", …" : "")", Self.describe(value))
            }
            switch value {
            case .string(let string):
                if let format = node.format, !StringFormats.valid(string, format) {
                    ok = fail(.format, format.rawValue, Self.describe(value))
                }
                if node.minLength != nil || node.maxLength != nil {
                    let count = string.unicodeScalars.count
                    if let min = node.minLength, count < min { ok = fail(.bounds, "at least \(min) characters", "\(count)") }
                    if let max = node.maxLength, count > max { ok = fail(.bounds, "at most \(max) characters", "\(count)") }
                }
            case .number(let number):
                if node.minimum != nil || node.maximum != nil, let double = Double(number.text) {
                    if let min = node.minimum, min.exclusive ? !(double > min.value) : !(double >= min.value) {
                        ok = fail(.bounds, (min.exclusive ? "more than " : "at least ") + Self.number(min.value), number.text)
                    }
                    if let max = node.maximum, max.exclusive ? !(double < max.value) : !(double <= max.value) {
                        ok = fail(.bounds, (max.exclusive ? "less than " : "at most ") + Self.number(max.value), number.text)
                    }
                }
            case .array(let elements):
                if let min = node.minItems, elements.count < min { ok = fail(.bounds, "at least \(min) items", "\(elements.count)") }
                if let max = node.maxItems, elements.count > max { ok = fail(.bounds, "at most \(max) items", "\(elements.count)") }
                if let items = node.items {
                    for (offset, element) in elements.enumerated() {
                        if report { path.append(.index(offset)) }
                        let good = check(element, items)
                        if report { path.removeLast() }
                        if !good {
                            ok = false
                            if !report || findings.count >= SchemaProgram.findingLimit { break }
                        }
                    }
                }
            case .object(let object):
                ok = checkObject(object, node) && ok
            case .null, .bool:
                break
            }
            if !ok && !report { return false }
            for member in node.allOf where !check(value, member) {
                ok = false
                if !report { return false }
            }
            if !node.anyOf.isEmpty, !node.anyOf.contains(where: { matches(value, $0) }) {
                ok = fail(.anyOf, "a value matching any of \(node.anyOf.count) schemas", "none matched")
            }
            if !node.oneOf.isEmpty {
                var matched = 0
                for branch in node.oneOf where matches(value, branch) { matched += 1 }
                if matched != 1 {
                    ok = fail(.oneOf, "a value matching exactly one of \(node.oneOf.count) schemas", "\(matched) matched")
                }
            }
            if let not = node.not, matches(value, not) {
                ok = fail(.not, "a value not matching the `not` schema", Self.describe(value))
            }
            return ok
        }

        /// Whether `value` satisfies node `index`, building no findings; depth and steps count on.
        mutating func matches(_ value: JSONValue, _ index: Int) -> Bool {
            let reporting = report
            report = false
            defer { report = reporting }
            return check(value, index)
        }

        mutating func checkObject(_ object: JSONObject, _ node: SchemaNode) -> Bool {
            var ok = true
            for name in node.required where object.values[name] == nil {
                if report { path.append(.key(name)) }
                ok = fail(.required, "a required member", "none")
                if report { path.removeLast() }
                if !report { return false }
            }
            let count = object.keys.count
            if let min = node.minProperties, count < min { ok = fail(.bounds, "at least \(min) members", "\(count)") }
            if let max = node.maxProperties, count > max { ok = fail(.bounds, "at most \(max) members", "\(count)") }
            if !ok && !report { return false }
            for key in object.keys {
                guard let member = object.values[key] else { continue }
                if report { path.append(.key(key)) }
                defer { if report { path.removeLast() } }
                if let property = node.properties[key] {
                    if !check(member, property) { ok = false }
                } else {
                    switch node.additional {
                    case .any: break
                    case .forbidden: ok = fail(.additional, "no member not in properties", Self.describe(member))
                    case .schema(let schema): if !check(member, schema) { ok = false }
                    }
                }
                if !ok && !report { return false }
            }
            return ok
        }

        static func has(_ value: JSONValue, _ types: JSONTypes) -> Bool {
            switch value {
            case .null: types.contains(.null)
            case .bool: types.contains(.boolean)
            case .string: types.contains(.string)
            case .array: types.contains(.array)
            case .object: types.contains(.object)
            case .number(let number):
                types.contains(.number) || (types.contains(.integer) && isIntegral(number.text))
            }
        }

        /// Whether a JSON number has no fraction: `3`, `3.0` and `3e2` do (as JSON Schema counts them).
        static func isIntegral(_ text: String) -> Bool {
            if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
                return true
            }
            guard let double = Double(text), double.isFinite else { return false }
            return double == double.rounded(.towardZero)
        }

        /// What came, for a finding: its type, and the value itself when short.
        static func describe(_ value: JSONValue) -> String {
            switch value {
            case .null: "null"
            case .bool(let bool): "boolean \(bool)"
            case .number(let number): "number \(number.text.count > 24 ? String(number.text.prefix(24)) + "…" : number.text)"
            case .string: "string \(value.compactText(limit: 40))"
            case .array(let elements): "array of \(elements.count)"
            case .object: "object"
            }
        }

        static func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }

        /// `$.items[3].price`, `$["a key"]`.
        static func text(_ path: [PathPart]) -> String {
            var text = "$"
            for part in path {
                switch part {
                case .index(let index): text += "[\(index)]"
                case .key(let key):
                    let plain = !key.isEmpty && key.utf8.allSatisfy { byte in
                        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2D
                    }
                    text += plain ? "." + key : "[" + JSONValue.string(key).compactText() + "]"
                }
            }
            return text
        }
    }
}

/// One way a value breaks its schema.
package struct SchemaFinding: Sendable, Equatable {
    /// The schema keyword that failed.
    package enum Rule: String, Sendable, CaseIterable {
        case type, required, enumeration = "enum", format, additional = "additionalProperties", bounds, oneOf, anyOf, not
    }

    package var rule: Rule
    /// Where in the document: `$` is the whole body.
    package var path: String
    package var expected: String
    package var got: String

    /// `$.items[3].price: expected number, got null`.
    package var text: String { "\(path): expected \(expected), got \(got)" }
}
