import Foundation
import LoupeTrace

/// Why a HAR file could not be imported; its description is one line naming the problem.
///
/// A struct around an open set of ``Code``s, so cases can be added without breaking callers:
/// `catch let error as HARImportError where error.code == .truncated`.
public struct HARImportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        public var description: String { name }

        /// The file could not be read.
        public static let unreadable = Code(name: "unreadable")
        /// The file is empty.
        public static let empty = Code(name: "empty")
        /// The file is not valid JSON.
        public static let malformedJSON = Code(name: "malformedJSON")
        /// The JSON stops before it is complete.
        public static let truncated = Code(name: "truncated")
        /// `log.version` is not 1.1 or 1.2.
        public static let unsupportedVersion = Code(name: "unsupportedVersion")
        /// Valid JSON, but not a HAR (no `log`, no `log.entries`).
        public static let notHAR = Code(name: "notHAR")
        /// An entry is missing something required, or holds a value of the wrong kind.
        public static let invalidEntry = Code(name: "invalidEntry")
    }

    /// The kind of failure.
    public var code: Code
    /// One line saying what is wrong, and where.
    public var message: String
    /// The byte offset (from 0) of a JSON syntax error, when known.
    public var byteOffset: Int?

    public init(code: Code, message: String, byteOffset: Int? = nil) {
        self.code = code
        self.message = Self.oneLine(message)
        self.byteOffset = byteOffset
    }

    public var description: String { message }

    static func unsupportedVersion(_ version: String) -> Self {
        Self(code: .unsupportedVersion, message:
            "unsupported HAR version \"\(version.prefix(20))\" in log.version (Loupe reads 1.1 and 1.2)")
    }

    static func notHAR(_ detail: String) -> Self {
        Self(code: .notHAR, message: "not a HAR file: \(detail)")
    }

    static func invalidEntry(_ path: String, _ detail: String) -> Self {
        Self(code: .invalidEntry, message: "\(path): \(detail)")
    }

    /// Newlines and tabs become spaces, and very long text is cut, so the message stays one readable line.
    private static func oneLine(_ text: String) -> String {
        let flat = String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
        return flat.count > 300 ? String(flat.prefix(300)) + "…" : flat
    }
}
