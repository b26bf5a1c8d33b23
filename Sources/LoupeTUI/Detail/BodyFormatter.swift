import Foundation
import LoupeTrace

/// Turns a recorded body into lines: JSON pretty-printed with sorted keys, text as is, anything else as a
/// `<binary, N bytes>` summary plus a short hexdump; always says when the recording was truncated.
enum BodyFormatter {
    static let maxTextLines = 2_000
    private static let indent = "  "

    static func lines(_ body: TraceBody?, headers: [TraceHeader]) -> [StyledLine] {
        guard let body else { return [StyledLine(indent + "(none)", style: .dim)] }
        if body.data.isEmpty, body.size == 0 { return [StyledLine(indent + "(empty)", style: .dim)] }
        var lines: [StyledLine]
        if let json = prettyJSON(body, headers: headers) {
            lines = textLines(json)
        } else if let text = decodeText(body) {
            lines = textLines(text)
        } else {
            lines = [StyledLine(indent + "<binary, \(QuantityFormat.grouped(max(body.size, body.data.count))) bytes>",
                                style: .dim)]
            lines += HexDump.lines(body.data, indent: indent)
        }
        if body.isTruncated {
            lines.append(StyledLine(indent + "(truncated: \(QuantityFormat.grouped(body.data.count)) of "
                                    + "\(QuantityFormat.grouped(body.size)) bytes stored)", style: .dim))
        }
        return lines
    }

    /// The body's size, as a section heading suffix (`23 B`, `1.2 KB (1,234 bytes)`, `…, truncated`).
    static func sizeNote(_ body: TraceBody?) -> String {
        guard let body else { return "" }
        let size = max(body.size, body.data.count)
        let exact = size < 1024 ? "" : " (\(QuantityFormat.grouped(size)) bytes)"
        return QuantityFormat.bytes(size) + exact + (body.isTruncated ? ", truncated" : "")
    }

    private static func prettyJSON(_ body: TraceBody, headers: [TraceHeader]) -> String? {
        guard !body.isTruncated else { return nil }
        let declared = headers.contains { $0.name.lowercased() == "content-type" && $0.value.lowercased().contains("json") }
        let looksLikeJSON = body.data.first { !isWhitespace($0) }.map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }
        guard declared || looksLikeJSON == true,
              let object = try? JSONSerialization.jsonObject(with: body.data, options: [.fragmentsAllowed]),
              let pretty = try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return nil }
        return String(decoding: pretty, as: UTF8.self)
    }

    /// The body as text when it is UTF-8 without binary control bytes; a truncated body may end mid-character.
    private static func decodeText(_ body: TraceBody) -> String? {
        let data = body.data
        let candidates = body.isTruncated ? (0...min(3, data.count)).map { data.dropLast($0) } : [data[...]]
        guard let text = candidates.lazy.compactMap({ String(validating: $0, as: UTF8.self) }).first else { return nil }
        let controls = text.unicodeScalars.filter { $0.value < 0x20 && !"\t\n\r\u{0C}".unicodeScalars.contains($0) }
        if controls.contains(where: { $0.value == 0 }) || controls.count * 20 > max(1, text.unicodeScalars.count) {
            return nil
        }
        return text
    }

    private static func textLines(_ text: String) -> [StyledLine] {
        var lines: [StyledLine] = []
        var count = 0
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            count += 1
            guard count <= maxTextLines else { continue }
            lines.append(StyledLine(indent + expandTabs(line)))
        }
        if count > maxTextLines {
            lines.append(StyledLine(indent + "… \(QuantityFormat.grouped(count - maxTextLines)) more lines", style: .dim))
        }
        return lines
    }

    private static func expandTabs(_ line: Substring) -> String {
        line.contains("\t") ? line.replacingOccurrences(of: "\t", with: "    ") : String(line)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
