import ArgumentParser
import Foundation
import LoupeConfig
import LoupeProtobuf

/// `--descriptor-set FILE` (or `LOUPE_DESCRIPTOR_SET`): a `FileDescriptorSet` (`protoc --descriptor_set_out=FILE
/// --include_imports`) that names gRPC messages' fields, enums and types, so viewers show them as JSON.
struct DescriptorSetOption: ParsableArguments {
    static let environmentVariable = "LOUPE_DESCRIPTOR_SET"
    /// Larger than any real set (googleapis' whole tree is a few MB), small enough to read at once.
    static let maximumSize = 64 * 1024 * 1024

    @Option(name: .customLong("descriptor-set"), help: ArgumentHelp(
        "Show gRPC messages by field name, as JSON, with the types of this FileDescriptorSet (protoc --descriptor_set_out=FILE --include_imports; default: $LOUPE_DESCRIPTOR_SET).",
        valueName: "FILE"))
    var path: String?

    /// The set named by the flag or the environment, or nil when neither names one; a file that cannot be read or
    /// is not a descriptor set is bad input (one line, exit 2).
    func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProtobufDescriptorSet? {
        let named = path ?? environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        guard let named else { return nil }
        let role = path == nil ? "$\(Self.environmentVariable)" : "--descriptor-set"
        let data: Data?
        do {
            data = try BoundedFileReader.read(named, limit: Self.maximumSize, what: "a descriptor set is at most 64 MiB")
        } catch {
            throw CommandFailure.badInput("\(role) \(named): \(error.reason)")
        }
        guard let data else { throw CommandFailure.badInput("\(role) \(named): no such file") }
        do {
            return try ProtobufDescriptorSet(bytes: data)
        } catch {
            throw CommandFailure.badInput("\(role) \(named): \(error)")
        }
    }
}
