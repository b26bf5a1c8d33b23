import Foundation

/// One part of a ``MultipartForm``: a text field, bytes in memory, or a file read from disk while sending.
public struct MultipartPart: Sendable, Hashable {
    enum Content: Sendable, Hashable {
        case data(Data)
        case file(URL)
    }

    /// The form field name.
    public var name: String
    /// The file name sent to the server, for data and file parts.
    public var filename: String?
    /// The part's media type; text fields send none (RFC 7578 then means `text/plain`).
    public var contentType: String?
    let content: Content

    /// A text field, sent as UTF-8.
    public static func text(name: String, value: String) -> MultipartPart {
        MultipartPart(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8)))
    }

    /// Bytes held in memory, optionally presented as a file.
    public static func data(
        name: String, data: Data, filename: String? = nil, contentType: String = "application/octet-stream"
    ) -> MultipartPart {
        MultipartPart(name: name, filename: filename, contentType: contentType, content: .data(data))
    }

    /// A file streamed from disk in chunks when the body is sent, never loaded whole. The file name defaults to the
    /// file's last path component, the type to a guess from its extension.
    public static func file(name: String, fileURL: URL, filename: String? = nil, contentType: String? = nil) -> MultipartPart {
        MultipartPart(
            name: name, filename: filename ?? fileURL.lastPathComponent,
            contentType: contentType ?? MediaTypes.guess(forExtension: fileURL.pathExtension), content: .file(fileURL))
    }

    /// `Content-Disposition` and `Content-Type` lines and the blank line that ends them.
    var headerBlock: Data {
        var disposition = "Content-Disposition: form-data; name=\"\(Self.escape(name))\""
        if let filename { disposition += "; filename=\"\(Self.escape(filename))\"" }
        var text = disposition + "\r\n"
        if let contentType { text += "Content-Type: \(Self.stripLineBreaks(contentType))\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// Escapes a quoted name the way the WHATWG HTML standard's multipart encoder does: `"` → `%22`, CR → `%0D`,
    /// LF → `%0A`; other characters, UTF-8 included, go as they are (RFC 7578 §4.2, no RFC 5987 `filename*`).
    static func escape(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A media type cannot end the header line early (header injection).
    static func stripLineBreaks(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }.map(Character.init))
    }
}

/// A few common media types by file extension; anything else is `application/octet-stream`.
enum MediaTypes {
    private static let byExtension: [String: String] = [
        "txt": "text/plain", "csv": "text/csv", "html": "text/html", "json": "application/json",
        "xml": "application/xml", "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "mp4": "video/mp4", "mp3": "audio/mpeg", "wav": "audio/wav",
    ]

    static func guess(forExtension pathExtension: String) -> String {
        byExtension[pathExtension.lowercased()] ?? "application/octet-stream"
    }
}
