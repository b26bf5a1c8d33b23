import Foundation
/// Finds the line a TOML section or key is written on, for error messages; TOMLKit gives positions only for
/// syntax errors.
///
/// It understands `[section]` headers, `key = …` lines (bare or quoted keys) and top-level dotted keys
/// (`section.key = …`); for anything cleverer (inline tables) it answers `nil` and the message goes without a line.
package struct TOMLLines {
    private let lines: [Substring]

    package init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The 1-based line holding the UTF-8 offset `index` of `text`.
    package static func line(of index: String.UTF8View.Index, in text: String) -> Int {
        text.utf8[..<index].count(where: { $0 == UInt8(ascii: "\n") }) + 1
    }

    /// The line of `[section]`, or of `section = …` at the top level.
    package func line(ofSection section: String) -> Int? {
        var current: String?
        for (index, line) in lines.enumerated() {
            if let header = Self.header(line) {
                if header == section { return index + 1 }
                current = header
            } else if current == nil, Self.key(line) == section {
                return index + 1
            }
        }
        return nil
    }

    /// The line of `key = …` inside `[section]`, or of `section.key = …` at the top level.
    package func line(ofKey key: String, inSection section: String) -> Int? {
        var current: String?
        for (index, line) in lines.enumerated() {
            if let header = Self.header(line) {
                current = header
                continue
            }
            guard let written = Self.key(line) else { continue }
            if current == section, written == key { return index + 1 }
            if current == nil, written == section + "." + key { return index + 1 }
        }
        return nil
    }

    /// The name in a `[name]` header line (not `[[array]]`), unquoted.
    private static func header(_ line: Substring) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("["), !trimmed.hasPrefix("[["), let close = trimmed.firstIndex(of: "]") else { return nil }
        return unquoted(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
    }

    /// The key of a `key = value` line, unquoted; dotted keys keep their dots.
    private static func key(_ line: Substring) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.hasPrefix("#"), !trimmed.hasPrefix("["), let equals = trimmed.firstIndex(of: "=") else {
            return nil
        }
        return trimmed[..<equals].split(separator: ".").map { unquoted($0) }.joined(separator: ".")
    }

    private static func unquoted(_ text: Substring) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 2, let first = trimmed.first, first == "\"" || first == "'", trimmed.last == first else {
            return trimmed
        }
        return String(trimmed.dropFirst().dropLast())
    }
}
