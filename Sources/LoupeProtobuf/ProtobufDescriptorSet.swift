/// The message types, enums and services of a `FileDescriptorSet` (what `protoc --descriptor_set_out=FILE
/// --include_imports` writes), read with Loupe's own wire reader: what lets viewers show a gRPC message by field
/// name (``ProtobufJSON``) with no swift-protobuf in them.
///
/// Any bytes are safe to give it: a set that is not protobuf, nests types past ``maxNesting``, defines a name twice
/// or names a type it does not define is refused with a ``ProtobufDescriptorError`` saying which.
public struct ProtobufDescriptorSet: Sendable {
    /// Message types by full name (no leading dot).
    public private(set) var messages: [String: ProtobufMessageType] = [:]
    /// Enum types by full name.
    public private(set) var enums: [String: ProtobufEnumType] = [:]
    /// Methods by `package.Service/Method`.
    public private(set) var methods: [String: ProtobufMethod] = [:]

    /// How deep message types may be declared inside one another.
    public static let maxNesting = 64

    /// An empty set (no types): every message reads as unknown.
    public init() {}

    /// Reads a serialized `google.protobuf.FileDescriptorSet`.
    public init(bytes: some Collection<UInt8>) throws(ProtobufDescriptorError) {
        let all = Array(bytes)
        guard let files = ProtobufWireRecord.read(all[...]) else {
            throw ProtobufDescriptorError("not a FileDescriptorSet (not protobuf at all)")
        }
        var fieldsToCheck: [(message: String, field: ProtobufFieldType)] = []
        var methodsToCheck: [ProtobufMethod] = []
        var fileCount = 0
        for file in files where file.number == 1 {
            guard case .bytes(let fileBytes) = file.value else { throw ProtobufDescriptorError("not a FileDescriptorSet (file \(fileCount + 1) is not a message)") }
            fileCount += 1
            let fileFields = try Self.record(fileBytes, "file \(fileCount)")
            let name = try Self.string(fileFields, 1, "file \(fileCount)") ?? "file \(fileCount)"
            let package = try Self.string(fileFields, 2, name) ?? ""
            let syntax = try Self.string(fileFields, 12, name) ?? "proto2"
            let prefix = package.isEmpty ? "" : package + "."
            for message in try Self.messages(fileFields, 4, name) {
                try read(message: message, scope: prefix, proto3: syntax == "proto3", file: name, depth: 0,
                         checks: &fieldsToCheck)
            }
            for enumType in try Self.messages(fileFields, 5, name) { try read(enum: enumType, scope: prefix, file: name) }
            for service in try Self.messages(fileFields, 6, name) {
                let serviceFields = try Self.record(service, name)
                let serviceName = prefix + (try Self.string(serviceFields, 1, name) ?? "")
                for method in try Self.messages(serviceFields, 2, serviceName) {
                    let fields = try Self.record(method, serviceName)
                    let methodName = try Self.string(fields, 1, serviceName) ?? ""
                    let read = ProtobufMethod(
                        path: serviceName + "/" + methodName,
                        input: Self.resolved(try Self.string(fields, 2, serviceName) ?? ""),
                        output: Self.resolved(try Self.string(fields, 3, serviceName) ?? ""),
                        clientStreaming: Self.varint(fields, 5) != 0, serverStreaming: Self.varint(fields, 6) != 0)
                    methods[read.path] = read
                    methodsToCheck.append(read)
                }
            }
        }
        guard fileCount > 0 else { throw ProtobufDescriptorError("not a FileDescriptorSet (it has no files)") }
        for (message, field) in fieldsToCheck {
            guard let typeName = field.typeName else { continue }
            let known = field.kind == .enum ? enums[typeName] != nil : messages[typeName] != nil
            if !known {
                throw ProtobufDescriptorError("\(message).\(field.name) names \(typeName), which the set does not define (made without --include_imports?)")
            }
        }
        for method in methodsToCheck {
            for type in [method.input, method.output] where messages[type] == nil {
                throw ProtobufDescriptorError("\(method.path) names \(type), which the set does not define (made without --include_imports?)")
            }
        }
    }

    /// The method recorded as `path` (`package.Service/Method`, with or without a leading `/`).
    public func method(_ path: String) -> ProtobufMethod? {
        methods[path.hasPrefix("/") ? String(path.dropFirst()) : path]
    }

    private mutating func read(message bytes: ArraySlice<UInt8>, scope: String, proto3: Bool, file: String, depth: Int,
                               checks: inout [(message: String, field: ProtobufFieldType)]) throws(ProtobufDescriptorError) {
        guard depth < Self.maxNesting else {
            throw ProtobufDescriptorError("\(file): message types nested more than \(Self.maxNesting) deep")
        }
        let record = try Self.record(bytes, file)
        let name = scope + (try Self.string(record, 1, file) ?? "")
        guard messages[name] == nil else { throw ProtobufDescriptorError("\(name) is defined twice") }
        var fields: [ProtobufFieldType] = []
        for fieldBytes in try Self.messages(record, 2, name) {
            let field = try Self.record(fieldBytes, name)
            let fieldName = try Self.string(field, 1, name) ?? ""
            let number = Self.varint(field, 3)
            guard (1...536_870_911).contains(number) else {
                throw ProtobufDescriptorError("\(name).\(fieldName) has number \(number), outside 1…536870911")
            }
            guard let kind = ProtobufFieldType.Kind(rawValue: Int(truncatingIfNeeded: Self.varint(field, 5))) else {
                throw ProtobufDescriptorError("\(name).\(fieldName) has an unknown type \(Self.varint(field, 5))")
            }
            let repeated = Self.varint(field, 4) == 3
            let oneof = Self.hasVarint(field, 9) ? Int(truncatingIfNeeded: Self.varint(field, 9)) : nil
            let typeName = try Self.string(field, 6, name).map(Self.resolved)
            if [.message, .group, .enum].contains(kind), typeName == nil {
                throw ProtobufDescriptorError("\(name).\(fieldName) names no type")
            }
            let presence = !repeated && (!proto3 || kind == .message || kind == .group || oneof != nil)
            let read = ProtobufFieldType(
                name: fieldName, jsonName: try Self.string(field, 10, name) ?? Self.camelCase(fieldName), number: Int(number),
                kind: kind, isRepeated: repeated, typeName: typeName, oneofIndex: oneof, hasPresence: presence)
            fields.append(read)
            checks.append((name, read))
        }
        fields.sort { $0.number < $1.number }
        let options = try Self.messages(record, 7, name).last.map { bytes throws(ProtobufDescriptorError) in try Self.record(bytes, name) }
        messages[name] = ProtobufMessageType(fullName: name, fields: fields,
                                             isMapEntry: options.map { Self.varint($0, 7) != 0 } ?? false)
        for nested in try Self.messages(record, 3, name) {
            try read(message: nested, scope: name + ".", proto3: proto3, file: file, depth: depth + 1, checks: &checks)
        }
        for nested in try Self.messages(record, 4, name) { try read(enum: nested, scope: name + ".", file: file) }
    }

    private mutating func read(enum bytes: ArraySlice<UInt8>, scope: String, file: String) throws(ProtobufDescriptorError) {
        let record = try Self.record(bytes, file)
        let name = scope + (try Self.string(record, 1, file) ?? "")
        guard enums[name] == nil else { throw ProtobufDescriptorError("\(name) is defined twice") }
        var names: [Int32: String] = [:]
        for value in try Self.messages(record, 2, name) {
            let fields = try Self.record(value, name)
            let number = Int32(truncatingIfNeeded: Self.varint(fields, 2))
            if names[number] == nil { names[number] = try Self.string(fields, 1, name) ?? "" }
        }
        enums[name] = ProtobufEnumType(fullName: name, names: names)
    }

    // MARK: Reading descriptor messages

    private typealias Record = [ProtobufWireRecord]

    private static func record(_ bytes: ArraySlice<UInt8>, _ context: String) throws(ProtobufDescriptorError) -> Record {
        guard let records = ProtobufWireRecord.read(bytes) else {
            throw ProtobufDescriptorError("\(context): a descriptor that is not protobuf")
        }
        return records
    }

    /// Every length-delimited value of field `number`.
    private static func messages(_ record: Record, _ number: Int, _ context: String) throws(ProtobufDescriptorError)
        -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        for field in record where field.number == number {
            guard case .bytes(let bytes) = field.value else {
                throw ProtobufDescriptorError("\(context): field \(number) of a descriptor has the wrong wire type")
            }
            out.append(bytes)
        }
        return out
    }

    /// The last value of string field `number`, if present.
    private static func string(_ record: Record, _ number: Int, _ context: String) throws(ProtobufDescriptorError) -> String? {
        guard let bytes = try messages(record, number, context).last else { return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ProtobufDescriptorError("\(context): a name that is not UTF-8")
        }
        return text
    }

    private static func varint(_ record: Record, _ number: Int) -> UInt64 {
        for field in record.reversed() where field.number == number {
            if case .varint(let value) = field.value { return value }
        }
        return 0
    }

    private static func hasVarint(_ record: Record, _ number: Int) -> Bool {
        record.contains { field in
            if field.number == number, case .varint = field.value { return true }
            return false
        }
    }

    /// A type reference as protoc writes it (`.loupe.test.Ping`, fully qualified) without its leading dot.
    static func resolved(_ name: String) -> String {
        name.hasPrefix(".") ? String(name.dropFirst()) : name
    }

    /// protoc's `ToJsonName`: underscores dropped, each letter after one capitalised.
    static func camelCase(_ name: String) -> String {
        var out = ""
        var upper = false
        for character in name {
            if character == "_" { upper = true; continue }
            out += upper ? character.uppercased() : String(character)
            upper = false
        }
        return out
    }
}
