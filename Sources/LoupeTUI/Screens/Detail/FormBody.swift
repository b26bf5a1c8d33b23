import Foundation
import LoupeTrace

/// An `application/x-www-form-urlencoded` body as one `name: value` line per field, decoded for reading.
enum FormBody {
    /// Nil when a field is not valid percent-encoding: the body is then better shown as it is.
    static func lines(_ bytes: Data, indent: String) -> [StyledLine]? {
        let text = String(decoding: bytes, as: UTF8.self).trimmingSuffix(whereSeparator: \.isNewline)
        guard !text.isEmpty else { return nil }
        var lines: [StyledLine] = []
        for field in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else { return nil }
            lines.append(StyledLine([.init(indent + TerminalText.line(name) + ": ", .label), .init(TerminalText.line(value))]))
        }
        return lines.isEmpty ? nil : lines
    }

    private static func decode(_ component: Substring) -> String? {
        component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

private extension String {
    func trimmingSuffix(whereSeparator isSeparator: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, isSeparator(self[index(before: end)]) { end = index(before: end) }
        return self[..<end]
    }
}
