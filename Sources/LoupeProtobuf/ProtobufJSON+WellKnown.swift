extension ProtobufJSON.Reader {
    /// What a well-known type reads as: `value` is nil when its bytes are not a valid one.
    struct WellKnown {
        var value: ProtobufJSONValue?
    }

    static let wrappers: Set<String> = [
        "DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value", "UInt32Value", "BoolValue",
        "StringValue", "BytesValue",
    ].reduce(into: []) { $0.insert("google.protobuf." + $1) }

    /// The JSON of the well-known types the mapping writes in their own form; nil for any other type.
    func wellKnown(_ typeName: String, bytes: ArraySlice<UInt8>, type: ProtobufMessageType,
                   records: [ProtobufWireRecord], depth: Int) -> WellKnown? {
        guard typeName.hasPrefix("google.protobuf.") else { return nil }
        func last(_ number: Int) -> ProtobufWireRecord.Value? { records.last { $0.number == number }?.value }
        func integer(_ number: Int) -> Int64 {
            if case .varint(let raw)? = last(number) { return Int64(bitPattern: raw) }
            return 0
        }
        switch typeName {
        case "google.protobuf.Timestamp":
            return WellKnown(value: Self.timestamp(seconds: integer(1), nanos: Int64(Int32(truncatingIfNeeded: integer(2)))))
        case "google.protobuf.Duration":
            return WellKnown(value: Self.duration(seconds: integer(1), nanos: Int64(Int32(truncatingIfNeeded: integer(2)))))
        case "google.protobuf.Empty":
            return WellKnown(value: .object([]))
        case "google.protobuf.FieldMask":
            var paths: [String] = []
            for record in records where record.number == 1 {
                guard case .bytes(let text) = record.value, let path = String(validating: text, as: UTF8.self) else {
                    return WellKnown(value: nil)
                }
                paths.append(ProtobufDescriptorSet.camelCase(path))
            }
            return WellKnown(value: .string(paths.joined(separator: ",")))
        case _ where Self.wrappers.contains(typeName):
            guard let field = type.field(number: 1) else { return WellKnown(value: nil) }
            guard let found = records.last(where: { $0.number == 1 && Self.wireTypeFits($0.value, field) }) else {
                return WellKnown(value: Self.defaultValue(field, set: set))
            }
            return WellKnown(value: value(found.value, field, depth: depth))
        case "google.protobuf.Struct", "google.protobuf.ListValue":
            guard let fields = fieldValues(type, records: records, depth: depth) else { return WellKnown(value: nil) }
            let empty: ProtobufJSONValue = typeName.hasSuffix("Struct") ? .object([]) : .array([])
            return WellKnown(value: fields.first?.value ?? empty)
        case "google.protobuf.Value":
            guard let fields = fieldValues(type, records: records, depth: depth) else { return WellKnown(value: nil) }
            guard let (field, value) = fields.last else { return WellKnown(value: nil) }
            // `null_value` reads as null; a number that is not finite has no JSON form.
            if field.number == 2, case .double(let number) = value, !number.isFinite { return WellKnown(value: nil) }
            return WellKnown(value: value)
        case "google.protobuf.Any":
            return WellKnown(value: any(records, depth: depth))
        default:
            return nil
        }
    }

    /// `{"@type": URL, …the packed message's fields}`, or `"value"` for a packed well-known type.
    func any(_ records: [ProtobufWireRecord], depth: Int) -> ProtobufJSONValue? {
        var url = ""
        var packed: ArraySlice<UInt8> = []
        for record in records {
            guard case .bytes(let bytes) = record.value else { continue }
            if record.number == 1 { url = String(validating: bytes, as: UTF8.self) ?? "" }
            if record.number == 2 { packed = bytes }
        }
        if url.isEmpty { return packed.isEmpty ? .object([]) : nil }
        let name = String(url[url.index(after: url.lastIndex(of: "/") ?? url.index(before: url.startIndex))...])
        guard let inner = message(packed, type: name, depth: depth + 1) else { return nil }
        if name.hasPrefix("google.protobuf."), set.messages[name] != nil,
           !(name == "google.protobuf.Empty" || name == "google.protobuf.Any"),
           ["Timestamp", "Duration", "FieldMask", "Struct", "Value", "ListValue"].contains(where: { name.hasSuffix("." + $0) })
            || Self.wrappers.contains(name) {
            return .object([("@type", .string(url)), ("value", inner)])
        }
        guard case .object(let members) = inner else { return nil }
        return .object([("@type", .string(url))] + members)
    }

    /// RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits; nil outside years 1–9999.
    static func timestamp(seconds: Int64, nanos: Int64) -> ProtobufJSONValue? {
        guard (-62_135_596_800...253_402_300_799).contains(seconds), (0..<1_000_000_000).contains(nanos) else { return nil }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let text = "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(secondOfDay / 3_600, 2)):"
            + "\(padded(secondOfDay / 60 % 60, 2)):\(padded(secondOfDay % 60, 2))\(fraction(nanos))Z"
        return .string(text)
    }

    /// `1.5s`, `-0.010s`: seconds with 0, 3, 6 or 9 fractional digits.
    static func duration(seconds: Int64, nanos: Int64) -> ProtobufJSONValue? {
        guard (-315_576_000_000...315_576_000_000).contains(seconds), (-999_999_999...999_999_999).contains(nanos),
              seconds == 0 || nanos == 0 || (seconds < 0) == (nanos < 0) else { return nil }
        let negative = seconds < 0 || nanos < 0
        return .string((negative ? "-" : "") + String(seconds.magnitude) + fraction(Int64(nanos.magnitude)) + "s")
    }

    static func fraction(_ nanos: Int64) -> String {
        guard nanos != 0 else { return "" }
        let nine = String(nanos)
        let digits = String(repeating: "0", count: 9 - nine.count) + nine
        if nanos % 1_000_000 == 0 { return "." + digits.prefix(3) }
        if nanos % 1_000 == 0 { return "." + digits.prefix(6) }
        return "." + digits
    }
}
