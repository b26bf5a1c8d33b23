/// A message in protobuf's JSON mapping, as ``ProtobufJSON`` reads it: written as text here (no JSON library in
/// this module) and encodable into a larger document (`loupe show --json`).
public indirect enum ProtobufJSONValue: Sendable, Hashable, Encodable {
    case null
    case bool(Bool)
    /// A 32-bit integer (64-bit ones are strings in the mapping).
    case integer(Int64)
    /// A `float` field, kept as a `Float` so it prints as its shortest decimal (`0.1`, not `0.10000000149…`).
    case float(Float)
    case double(Double)
    case string(String)
    case array([ProtobufJSONValue])
    /// Members in field-number order.
    case object([(String, ProtobufJSONValue)])

    public static func == (lhs: ProtobufJSONValue, rhs: ProtobufJSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.float(let a), .float(let b)): a == b || (a.isNaN && b.isNaN)
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(text())
    }

    /// The JSON text: on one line (`{"text": "hi", "count": "2"}` without spaces), or indented two spaces a level.
    public func text(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, indent: pretty ? "\n" : nil)
        return out
    }

    private func write(into out: inout String, indent: String?) {
        switch self {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .integer(let number): out += String(number)
        case .float(let number): out += Self.number(Double(number), text: "\(number)")
        case .double(let number): out += Self.number(number, text: "\(number)")
        case .string(let string): out += Self.quoted(string)
        case .array(let elements):
            guard !elements.isEmpty else { out += "[]"; return }
            out += "["
            let inner = indent.map { $0 + "  " }
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                if let inner { out += inner }
                element.write(into: &out, indent: inner)
            }
            if let indent { out += indent }
            out += "]"
        case .object(let members):
            guard !members.isEmpty else { out += "{}"; return }
            out += "{"
            let inner = indent.map { $0 + "  " }
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                if let inner { out += inner }
                out += Self.quoted(key) + (indent == nil ? ":" : ": ")
                value.write(into: &out, indent: inner)
            }
            if let indent { out += indent }
            out += "}"
        }
    }

    /// A finite number as Swift's shortest round-trip text (`1e+20` is JSON too); the mapping's strings otherwise.
    private static func number(_ value: Double, text: String) -> String {
        if value.isNaN { return "\"NaN\"" }
        if value.isInfinite { return value < 0 ? "\"-Infinity\"" : "\"Infinity\"" }
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value):
                // Controls (and bidi overrides) escaped: this text is shown on terminals.
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .integer(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .float(let number) where !number.isFinite:
            try ProtobufJSONValue.double(Double(number)).encode(to: encoder)
        case .float(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .double(let number):
            var container = encoder.singleValueContainer()
            // The mapping's strings for what JSON has no number for, whatever the encoder's own strategy.
            if number.isNaN { try container.encode("NaN") } else if number.isInfinite {
                try container.encode(number < 0 ? "-Infinity" : "Infinity")
            } else { try container.encode(number) }
        case .string(let string):
            var container = encoder.singleValueContainer()
            try container.encode(string)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }
}
