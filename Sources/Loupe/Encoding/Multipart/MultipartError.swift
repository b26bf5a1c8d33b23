import Foundation

/// A multipart body could not be produced: a file is missing, unreadable, or changed size while being sent.
public struct MultipartError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        case unreadable(String)
        case notAFile
        case changed(expected: Int64, actual: Int64)
    }

    let reason: Reason
    /// The file concerned.
    public let fileURL: URL

    static func unreadable(_ url: URL, reason: String) -> Self { Self(reason: .unreadable(reason), fileURL: url) }
    static func notAFile(_ url: URL) -> Self { Self(reason: .notAFile, fileURL: url) }
    static func fileChanged(_ url: URL, expected: Int64, actual: Int64) -> Self {
        Self(reason: .changed(expected: expected, actual: actual), fileURL: url)
    }

    public var description: String {
        switch reason {
        case .unreadable(let why): "cannot read \(fileURL.path): \(why)"
        case .notAFile: "\(fileURL.path) is not a regular file"
        case .changed(let expected, let actual):
            "\(fileURL.path) changed while being sent: expected \(expected) bytes, found \(actual < expected ? "only \(actual)" : "more")"
        }
    }
}
