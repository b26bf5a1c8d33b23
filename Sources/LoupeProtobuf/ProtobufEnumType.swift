/// An enum type of a descriptor set: its values' names by number.
public struct ProtobufEnumType: Sendable, Hashable {
    /// Without a leading dot: `loupe.test.Color`.
    public var fullName: String
    /// The first name declared for each number (an alias does not rename it).
    public var names: [Int32: String]
}
