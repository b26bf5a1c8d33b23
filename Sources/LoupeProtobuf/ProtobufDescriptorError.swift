/// Why bytes are not a descriptor set Loupe can decode messages with: a sentence naming the problem.
public struct ProtobufDescriptorError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
