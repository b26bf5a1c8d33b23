import Foundation

extension UUID {
    /// The id's sixteen bytes as two words: what the recorder's in-flight table compares and the in-memory store's
    /// index hashes. `UUID ==` compares its byte tuple element by element, and its hash feeds the bytes through
    /// `Hasher.combine(bytes:)`.
    package var words: (UInt64, UInt64) {
        withUnsafeBytes(of: uuid) { ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
    }
}
