import Foundation
import LoupeTrace

/// Bodies as HAR text, written from their bytes: what ``HARBodyText/encode(_:)`` gives (UTF-8 as is, anything else
/// base64), without making a `String` of a body that is already UTF-8.
enum HARBodyBytes {
    /// The body as a JSON string: its text when `isText` (from `UTF8Validation.isUTF8(_:)`), else its base64.
    static func write(_ data: Data, isText: Bool, to out: HARBytes) {
        guard isText else {
            // Base64's alphabet needs no escaping.
            return data.base64EncodedData().withUnsafeBytes { out.string(escaped: $0.bindMemory(to: UInt8.self)) }
        }
        data.withUnsafeBytes { out.string($0.bindMemory(to: UInt8.self)) }
    }
}
