/// A message type of a descriptor set: its fields by number.
public struct ProtobufMessageType: Sendable, Hashable {
    /// Without a leading dot: `loupe.test.Ping`.
    public var fullName: String
    /// In field-number order.
    public var fields: [ProtobufFieldType]
    /// A map field's entry type (`key` = 1, `value` = 2), which JSON writes as an object.
    public var isMapEntry: Bool

    /// The field with `number`, if the type declares it.
    public func field(number: Int) -> ProtobufFieldType? {
        var low = 0, high = fields.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if fields[middle].number == number { return fields[middle] }
            if fields[middle].number < number { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}
