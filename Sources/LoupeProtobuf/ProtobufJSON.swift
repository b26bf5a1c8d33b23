/// A protobuf message read by its type from a descriptor set, in protobuf's canonical JSON mapping (what
/// `MessageToJson` writes): fields by their JSON names in field-number order, 64-bit integers as strings, enums by
/// name, bytes in base64, maps as objects, repeated fields (packed or not) as arrays, the last of a oneof's members,
/// and the well-known types (`Timestamp`, `Duration`, wrappers, `Struct`, `Value`, `ListValue`, `FieldMask`,
/// `Empty`, `Any`) in their own forms. Fields the type does not declare are left out, as the mapping leaves them;
/// `protoc --decode_raw`'s text (``ProtobufText``) still shows every byte.
///
/// Any bytes are safe: a message that does not parse as its type (a bad length, a string that is not UTF-8, nesting
/// past ``maxDepth``) is nil, never a partial answer.
public enum ProtobufJSON {
    /// How deep messages may nest (protobuf's own parsers stop at 100).
    public static let maxDepth = 100

    /// The message of type `typeName` (no leading dot) in `bytes`, or nil when the set does not define the type or
    /// the bytes are not one.
    public static func decode(_ bytes: some Collection<UInt8>, type typeName: String, in set: ProtobufDescriptorSet)
        -> ProtobufJSONValue? {
        let all = Array(bytes)
        return Reader(set: set).message(all[...], type: typeName, depth: 0)
    }

    /// A recorded gRPC message of the method `path` (`package.Service/Method`): its request type when `request`,
    /// else its response type.
    public static func decode(_ bytes: some Collection<UInt8>, method path: String, request: Bool,
                              in set: ProtobufDescriptorSet) -> ProtobufJSONValue? {
        guard let method = set.method(path) else { return nil }
        return decode(bytes, type: request ? method.input : method.output, in: set)
    }

    struct Reader {
        let set: ProtobufDescriptorSet

        func message(_ bytes: ArraySlice<UInt8>, type typeName: String, depth: Int) -> ProtobufJSONValue? {
            guard depth < ProtobufJSON.maxDepth, let type = set.messages[typeName],
                  let records = ProtobufWireRecord.read(bytes) else { return nil }
            if let special = wellKnown(typeName, bytes: bytes, type: type, records: records, depth: depth) {
                return special.value
            }
            guard let fields = fieldValues(type, records: records, depth: depth) else { return nil }
            return .object(fields.map { ($0.field.jsonName, $0.value) })
        }

        /// Each declared field present, with its JSON value, in field-number order; nil when one does not read.
        func fieldValues(_ type: ProtobufMessageType, records: [ProtobufWireRecord], depth: Int)
            -> [(field: ProtobufFieldType, value: ProtobufJSONValue)]? {
            var byNumber: [Int: [ProtobufWireRecord]] = [:]
            // A oneof keeps the member that came last on the wire.
            var oneofLast: [Int: Int] = [:]
            for record in records {
                guard let field = type.field(number: record.number), Self.wireTypeFits(record.value, field) else { continue }
                byNumber[record.number, default: []].append(record)
                if let oneof = field.oneofIndex { oneofLast[oneof] = field.number }
            }
            var out: [(field: ProtobufFieldType, value: ProtobufJSONValue)] = []
            for field in type.fields {
                guard let found = byNumber[field.number] else { continue }
                if let oneof = field.oneofIndex, oneofLast[oneof] != field.number { continue }
                if field.isRepeated {
                    if field.kind == .message, let entry = set.messages[field.typeName ?? ""], entry.isMapEntry {
                        guard let map = self.map(found, entry: entry, depth: depth) else { return nil }
                        out.append((field, map))
                        continue
                    }
                    var elements: [ProtobufJSONValue] = []
                    for record in found {
                        if case .bytes(let packed) = record.value, field.kind.isPackable {
                            guard let unpacked = self.packed(packed, field) else { return nil }
                            elements += unpacked
                        } else {
                            guard let element = value(record.value, field, depth: depth) else { return nil }
                            elements.append(element)
                        }
                    }
                    if !elements.isEmpty { out.append((field, .array(elements))) }
                } else if field.kind == .message || field.kind == .group {
                    // Occurrences of a message field merge, as parsing their concatenation does.
                    var merged: [UInt8] = []
                    for record in found {
                        switch record.value {
                        case .bytes(let bytes): merged += bytes
                        case .group(let bytes): merged += bytes
                        default: break
                        }
                    }
                    guard let inner = message(merged[...], type: field.typeName ?? "", depth: depth + 1) else { return nil }
                    out.append((field, inner))
                } else {
                    guard let last = found.last, let value = value(last.value, field, depth: depth) else { return nil }
                    if !field.hasPresence, Self.isDefault(last.value) { continue }
                    out.append((field, value))
                }
            }
            return out
        }

        static func wireTypeFits(_ value: ProtobufWireRecord.Value, _ field: ProtobufFieldType) -> Bool {
            switch (value, field.kind) {
            case (.bytes, _): return field.kind == .string || field.kind == .bytes || field.kind == .message
                || (field.isRepeated && field.kind.isPackable)
            case (.group, .group): return true
            case (.varint, .int32), (.varint, .int64), (.varint, .uint32), (.varint, .uint64), (.varint, .sint32),
                 (.varint, .sint64), (.varint, .bool), (.varint, .enum): return true
            case (.fixed64, .fixed64), (.fixed64, .sfixed64), (.fixed64, .double): return true
            case (.fixed32, .fixed32), (.fixed32, .sfixed32), (.fixed32, .float): return true
            default: return false
            }
        }

        static func isDefault(_ value: ProtobufWireRecord.Value) -> Bool {
            switch value {
            case .varint(let number), .fixed64(let number): number == 0
            case .fixed32(let number): number == 0
            case .bytes(let bytes): bytes.isEmpty
            case .group: false
            }
        }

        /// One value of a field as JSON.
        func value(_ record: ProtobufWireRecord.Value, _ field: ProtobufFieldType, depth: Int) -> ProtobufJSONValue? {
            switch record {
            case .varint(let raw): return Self.varint(raw, field, set: set)
            case .fixed64(let raw):
                switch field.kind {
                case .double: return .double(Double(bitPattern: raw))
                case .sfixed64: return .string(String(Int64(bitPattern: raw)))
                default: return .string(String(raw))
                }
            case .fixed32(let raw):
                switch field.kind {
                case .float: return .float(Float(bitPattern: raw))
                case .sfixed32: return .integer(Int64(Int32(bitPattern: raw)))
                default: return .integer(Int64(raw))
                }
            case .bytes(let bytes):
                switch field.kind {
                case .string: return String(validating: bytes, as: UTF8.self).map(ProtobufJSONValue.string)
                case .bytes: return .string(Self.base64(bytes))
                default: return message(bytes, type: field.typeName ?? "", depth: depth + 1)
                }
            case .group(let bytes): return message(bytes, type: field.typeName ?? "", depth: depth + 1)
            }
        }

        static func varint(_ raw: UInt64, _ field: ProtobufFieldType, set: ProtobufDescriptorSet) -> ProtobufJSONValue {
            switch field.kind {
            case .int32: .integer(Int64(Int32(truncatingIfNeeded: raw)))
            case .uint32: .integer(Int64(UInt32(truncatingIfNeeded: raw)))
            case .sint32:
                .integer(Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: raw >> 1)) ^ -Int32(truncatingIfNeeded: raw & 1)))
            case .int64: .string(String(Int64(bitPattern: raw)))
            case .sint64: .string(String(Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)))
            case .bool: .bool(raw != 0)
            case .enum:
                enumValue(Int32(truncatingIfNeeded: raw), type: field.typeName ?? "", set: set)
            default: .string(String(raw))
            }
        }

        static func enumValue(_ number: Int32, type: String, set: ProtobufDescriptorSet) -> ProtobufJSONValue {
            if type == "google.protobuf.NullValue" { return .null }
            return set.enums[type]?.names[number].map(ProtobufJSONValue.string) ?? .integer(Int64(number))
        }

        /// A packed run of scalars.
        func packed(_ bytes: ArraySlice<UInt8>, _ field: ProtobufFieldType) -> [ProtobufJSONValue]? {
            var out: [ProtobufJSONValue] = []
            var offset = bytes.startIndex
            while offset < bytes.endIndex {
                switch field.kind {
                case .double, .fixed64, .sfixed64:
                    guard let raw = ProtobufWireRecord.fixed(bytes, &offset, 8),
                          let value = value(.fixed64(raw), field, depth: 0) else { return nil }
                    out.append(value)
                case .float, .fixed32, .sfixed32:
                    guard let raw = ProtobufWireRecord.fixed(bytes, &offset, 4),
                          let value = value(.fixed32(UInt32(raw)), field, depth: 0) else { return nil }
                    out.append(value)
                default:
                    guard let raw = ProtobufWireRecord.varint(bytes, &offset) else { return nil }
                    out.append(Self.varint(raw, field, set: set))
                }
            }
            return out
        }

        /// A map field's entries as an object, keys as text; a later entry of one key replaces an earlier one.
        func map(_ records: [ProtobufWireRecord], entry: ProtobufMessageType, depth: Int) -> ProtobufJSONValue? {
            guard let keyField = entry.field(number: 1), let valueField = entry.field(number: 2) else { return nil }
            var members: [(String, ProtobufJSONValue)] = []
            var positions: [String: Int] = [:]
            for record in records {
                guard case .bytes(let bytes) = record.value, let inner = ProtobufWireRecord.read(bytes) else { return nil }
                var key: ProtobufJSONValue = Self.defaultValue(keyField, set: set)
                var value: ProtobufJSONValue? = nil
                for part in inner where Self.wireTypeFits(part.value, part.number == 1 ? keyField : valueField) {
                    if part.number == 1 {
                        guard let read = self.value(part.value, keyField, depth: depth) else { return nil }
                        key = read
                    } else if part.number == 2 {
                        guard let read = self.value(part.value, valueField, depth: depth) else { return nil }
                        value = read
                    }
                }
                if value == nil {
                    if valueField.kind == .message {
                        guard let empty = message([][...], type: valueField.typeName ?? "", depth: depth + 1) else { return nil }
                        value = empty
                    } else {
                        value = Self.defaultValue(valueField, set: set)
                    }
                }
                let text: String
                switch key {
                case .string(let string): text = string
                case .integer(let number): text = String(number)
                case .bool(let flag): text = flag ? "true" : "false"
                default: return nil
                }
                if let position = positions[text] { members[position].1 = value! } else {
                    positions[text] = members.count
                    members.append((text, value!))
                }
            }
            return .object(members)
        }

        static func defaultValue(_ field: ProtobufFieldType, set: ProtobufDescriptorSet) -> ProtobufJSONValue {
            switch field.kind {
            case .string, .bytes: .string("")
            case .bool: .bool(false)
            case .int64, .uint64, .sint64, .fixed64, .sfixed64: .string("0")
            case .double: .double(0)
            case .float: .float(0)
            case .enum: enumValue(0, type: field.typeName ?? "", set: set)
            default: .integer(0)
            }
        }

        static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

        /// Standard base64 with padding, as the mapping writes `bytes`.
        static func base64(_ bytes: ArraySlice<UInt8>) -> String {
            var out: [UInt8] = []
            out.reserveCapacity((bytes.count + 2) / 3 * 4)
            var index = bytes.startIndex
            while index < bytes.endIndex {
                let count = min(3, bytes.endIndex - index)
                var chunk: UInt32 = 0
                for offset in 0..<3 { chunk = chunk << 8 | UInt32(offset < count ? bytes[index + offset] : 0) }
                for position in 0..<4 {
                    out.append(position <= count ? base64Alphabet[Int(chunk >> (18 - 6 * UInt32(position)) & 63)] : UInt8(ascii: "="))
                }
                index += count
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
