import Foundation
import Loupe
import LoupeTrace

/// A recorded body as lines in one of the ``BodyView``s; every view says when the recording was truncated.
///
/// The lines come out safe for a terminal (`TextLines`, `JSONLineSource`, `FormBody` and `HexDump` each make
/// control characters visible), so callers append them without another pass over a large body, and the lines of
/// the large views are deferred (``StyledLine``): building a 1 MiB body's lines costs one pass over its bytes.
enum BodyFormatter {
    static let indent = "  "

    static func lines(_ body: TraceBody?, headers: [TraceHeader], view: BodyView) -> [StyledLine] {
        var lines: [StyledLine] = []
        append(body, headers: headers, view: view, to: &lines)
        return lines
    }

    /// ``lines(_:headers:view:)`` appended to `lines` (a detail tab's), so that a large JSON body's lines are laid
    /// into that array as they are found instead of into one of their own copied after it.
    static func append(_ body: TraceBody?, headers: [TraceHeader], view: BodyView, to lines: inout [StyledLine]) {
        guard let body else { return lines.append(dim("(none)")) }
        if body.data.isEmpty {
            lines.append(dim(body.size == 0 ? "(empty)" : "(no bytes stored)"))
        } else {
            switch view {
            case .pretty: pretty(body, contentType: contentType(headers), to: &lines)
            case .raw: lines += TextLines.lines(body.data, indent: indent)
            case .hex: lines += HexDump.lines(body.data, indent: indent)
            }
        }
        if body.isTruncated {
            lines.append(dim("(truncated: \(Quantity.count(body.data.count)) of "
                             + "\(Quantity.count(body.size)) bytes stored)"))
        }
    }

    /// The body's size, as a section heading suffix (`23 B`, `1.2 KB (1,234 bytes)`, `…, truncated`).
    static func sizeNote(_ body: TraceBody?) -> String {
        guard let body else { return "" }
        let size = max(body.size, body.data.count)
        let exact = size < 1024 ? "" : " (\(Quantity.count(size)) bytes)"
        return Quantity.bytes(size) + exact + (body.isTruncated ? ", truncated" : "")
    }

    private static func pretty(_ body: TraceBody, contentType: String, to lines: inout [StyledLine]) {
        var note: StyledLine?
        let declaredJSON = contentType.contains("json")
        if declaredJSON || startsLikeJSON(body.data) {
            let first = lines.count
            switch JSONReindenter.reindent(body.data, indent: indent, appendingTo: &lines) {
            case .complete:
                return
            case .incomplete:
                if !body.isTruncated { lines.append(dim("(the JSON ends early)")) }
                return
            case .invalid(let offset):
                // Shown as text instead: the lines laid out before the error go.
                lines.removeSubrange(first...)
                if declaredJSON { note = dim("(not valid JSON at byte \(Quantity.count(offset)): shown as text)") }
            }
        }
        let textLength = body.data.withUnsafeBytes {
            Self.textLength($0.bindMemory(to: UInt8.self), truncated: body.isTruncated)
        }
        guard let textLength else {
            lines.append(dim("<binary, \(Quantity.count(max(body.size, body.data.count))) bytes>"))
            lines += HexDump.lines(body.data, indent: indent)
            return
        }
        if contentType.contains("x-www-form-urlencoded"), let fields = FormBody.lines(body.data.prefix(textLength), indent: indent) {
            lines += fields
            return
        }
        if let note { lines.append(note) }
        lines += TextLines.lines(body.data, length: textLength, indent: indent)
    }

    /// How many leading bytes are UTF-8 text without binary control bytes; nil for binary. A truncated body may
    /// end inside a character, so up to three bytes may be left off.
    private static func textLength(_ bytes: UnsafeBufferPointer<UInt8>, truncated: Bool) -> Int? {
        var controls = 0
        for byte in bytes where byte < 0x20 || byte == 0x7F {
            switch byte {
            case 0x00: return nil
            case 0x09, 0x0A, 0x0C, 0x0D: continue
            default: controls += 1
            }
        }
        guard controls * 20 <= bytes.count else { return nil }
        let cuts = truncated ? 0...min(3, bytes.count - 1) : 0...0
        return cuts.lazy.map { bytes.count - $0 }
            .first { String(validating: UnsafeBufferPointer(rebasing: bytes[..<$0]), as: UTF8.self) != nil }
    }

    private static func startsLikeJSON(_ data: Data) -> Bool {
        guard let first = data.first(where: { !(0x20 == $0 || 0x09 == $0 || 0x0A == $0 || 0x0D == $0) }) else {
            return false
        }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    private static func contentType(_ headers: [TraceHeader]) -> String {
        headers.first { $0.name.lowercased() == "content-type" }?.value.lowercased() ?? ""
    }

    private static func dim(_ text: String) -> StyledLine {
        StyledLine(indent + text, style: .dim)
    }
}
