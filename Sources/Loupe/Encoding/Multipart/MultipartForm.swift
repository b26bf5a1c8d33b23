import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields, bytes, and files streamed from disk in chunks.
///
/// ```swift
/// var form = MultipartForm()
/// form.append(name: "title", value: "Holiday")
/// form.appendFile(name: "photo", fileURL: photoURL)          // read 64 KiB at a time while sending
/// struct Upload: Endpoint { … var body: EndpointBody { .multipart(form) } }
/// ```
/// The body's exact length is computed before sending (file sizes are read then), so it goes out with
/// `Content-Length`, and it can be replayed by a retry because each send reopens the files.
public struct MultipartForm: Sendable, Hashable {
    /// The delimiter between parts; inject one for byte-exact tests, otherwise it is random.
    public let boundary: String
    /// The parts, in order.
    public private(set) var parts: [MultipartPart]

    /// A form delimited by `boundary` (1–70 letters, digits or `'()+_,-./:=?`), or a random one.
    public init(boundary: String? = nil, parts: [MultipartPart] = []) {
        let boundary = boundary ?? Self.randomBoundary()
        precondition(Self.isValidBoundary(boundary), "a multipart boundary is 1–70 RFC 2046 bchars: \(boundary)")
        self.boundary = boundary
        self.parts = parts
    }

    /// Adds a part.
    public mutating func append(_ part: MultipartPart) {
        parts.append(part)
    }

    /// Adds a text field.
    public mutating func append(name: String, value: String) {
        append(.text(name: name, value: value))
    }

    /// Adds bytes from memory, optionally presented as a file.
    public mutating func append(name: String, data: Data, filename: String? = nil, contentType: String = "application/octet-stream") {
        append(.data(name: name, data: data, filename: filename, contentType: contentType))
    }

    /// Adds a file that is streamed from disk when the body is sent.
    public mutating func appendFile(name: String, fileURL: URL, filename: String? = nil, contentType: String? = nil) {
        append(.file(name: name, fileURL: fileURL, filename: filename, contentType: contentType))
    }

    /// `multipart/form-data; boundary=…`, for the `Content-Type` header.
    public var contentType: String {
        let needsQuotes = boundary.unicodeScalars.contains { !Self.tokenCharacters.contains($0) }
        return "multipart/form-data; boundary=" + (needsQuotes ? "\"\(boundary)\"" : boundary)
    }

    /// The body, read in chunks of at most `chunkSize` bytes; file sizes are read now to fix the exact length.
    public func makeBody(chunkSize: Int = 64 * 1024) throws -> RequestBody {
        precondition(chunkSize > 0, "chunkSize must be positive")
        let segments = try makeSegments()
        let length = segments.reduce(Int64(0)) { $0 + $1.length }
        return .stream(length: length, replayable: true) {
            let reader = MultipartBodyReader(segments: segments, chunkSize: chunkSize)
            return AsyncThrowingStream(unfolding: { try reader.next() })
        }
    }

    /// The byte runs of the body in order: literal bytes and files of a known size.
    func makeSegments() throws -> [MultipartSegment] {
        var segments: [MultipartSegment] = []
        for part in parts {
            var head = Data("--\(boundary)\r\n".utf8)
            head.append(part.headerBlock)
            segments.append(.bytes(head))
            switch part.content {
            case .data(let data):
                segments.append(.bytes(data))
            case .file(let url):
                segments.append(.file(url, size: try Self.size(of: url)))
            }
            segments.append(.bytes(Data("\r\n".utf8)))
        }
        segments.append(.bytes(Data("--\(boundary)--\r\n".utf8)))
        return segments
    }

    static func size(of url: URL) throws -> Int64 {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? NSNumber else {
                throw MultipartError.notAFile(url)
            }
            return size.int64Value
        } catch let error as MultipartError {
            throw error
        } catch {
            throw MultipartError.unreadable(url, reason: String(describing: error))
        }
    }

    /// `loupe-` and 32 random letters and digits: never found in real content by chance.
    public static func randomBoundary() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return "loupe-" + String((0..<32).map { _ in alphabet.randomElement()! })
    }

    private static let tokenCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.".unicodeScalars)
    private static let boundaryCharacters = tokenCharacters.union("'()+,/:=?".unicodeScalars)

    static func isValidBoundary(_ boundary: String) -> Bool {
        (1...70).contains(boundary.unicodeScalars.count) && boundary.unicodeScalars.allSatisfy(boundaryCharacters.contains)
    }
}
