import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Yams

/// Reading an OpenAPI 3.0 or 3.1 document (JSON or YAML) into OpenAPIKit's 3.1 model: a 3.0 document is decoded
/// as 3.0 and converted, so the rest of the contract reads one model.
enum ContractDocument {
    /// A document larger than this is refused before it is decoded (a 200-operation document is well under 1 MiB).
    static let maximumBytes = 32 << 20

    private struct Head: Decodable {
        var openapi: String
    }

    static func decode(_ data: Data) throws(ContractError) -> OpenAPIKit.OpenAPI.Document {
        guard data.count <= maximumBytes else {
            throw ContractError("the document is larger than \(maximumBytes >> 20) MiB")
        }
        let isJSON = data.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } == UInt8(ascii: "{")
        func read<T: Decodable>(_ type: T.Type) throws -> T {
            if isJSON { return try JSONDecoder().decode(type, from: data) }
            return try YAMLDecoder().decode(type, from: data)
        }
        let version: String
        do {
            version = try read(Head.self).openapi
        } catch {
            throw ContractError("not an OpenAPI document (no `openapi` version): \(Self.reason(error))")
        }
        do {
            if version.hasPrefix("3.0") {
                return try read(OpenAPIKit30.OpenAPI.Document.self).convert(to: .v3_1_0)
            }
            guard version.hasPrefix("3.1") || version.hasPrefix("3.2") else {
                throw ContractError("OpenAPI \(version) is not supported (3.0, 3.1 and 3.2 are)")
            }
            return try read(OpenAPIKit.OpenAPI.Document.self)
        } catch let error as ContractError {
            throw error
        } catch {
            throw ContractError(Self.reason(error))
        }
    }

    /// A decoding error as one line: OpenAPIKit's own errors say where in the document.
    static func reason(_ error: any Error) -> String {
        let text = error is ContractError ? String(describing: error) : OpenAPIKit.OpenAPI.Error(from: error).localizedDescription
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

/// Why a contract could not be read: one line for `loupe: FILE: …`.
public struct ContractError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
