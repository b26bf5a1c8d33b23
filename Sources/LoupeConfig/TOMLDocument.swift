import Foundation
import TOMLKit

/// A TOML file's text made into a table the one safe way: UTF-8, no NUL, through ``TOMLGuard``, then TOMLKit.
package enum TOMLDocument {
    /// The parsed table, with the text (for ``TOMLLines``), or the first problem and its line.
    package static func parse(_ data: Data) throws(ConfigFileError) -> (table: TOMLTable, text: String) {
        guard let text = String(validating: data, as: UTF8.self) else { throw ConfigFileError("not UTF-8 text") }
        // The parser reads a C string: a NUL would silently end the file early.
        if let index = text.utf8.firstIndex(of: 0) {
            throw ConfigFileError(line: TOMLLines.line(of: index, in: text), "contains a NUL byte")
        }
        try TOMLGuard.check(text)
        do {
            return (try TOMLTable(string: text), text)
        } catch let error as TOMLParseError {
            throw ConfigFileError(line: error.source.begin.line, error.description)
        } catch {
            throw ConfigFileError("\(error)")
        }
    }
}
