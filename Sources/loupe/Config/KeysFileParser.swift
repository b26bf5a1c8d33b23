import Foundation
import LoupeTUI
import LoupeConfig
import TOMLKit

/// Turns a `keys.toml`'s bytes into overrides, checking shape and key names only.
enum KeysFileParser {
    /// The overrides in `data`, sorted by context and command so the result does not depend on TOML table order.
    static func overrides(in data: Data) throws(KeysFileError) -> [KeyOverride] {
        let (table, text) = try TOMLDocument.parse(data)
        let lines = TOMLLines(text)
        var result: [KeyOverride] = []
        for context in table.keys.sorted() {
            guard let section = table[context]?.table else {
                throw KeysFileError(line: lines.line(ofSection: context),
                                    "\(shown(context)) must be a [\(context.prefix(40))] section of bindings")
            }
            result += try overrides(in: section, context: context, lines: lines)
        }
        return result
    }

    private static func overrides(in section: TOMLTable, context: String, lines: TOMLLines)
        throws(KeysFileError) -> [KeyOverride] {
        var result: [KeyOverride] = []
        var owner: [Key: String] = [:]
        for command in section.keys.sorted() {
            let line = lines.line(ofKey: command, inSection: context)
            guard let value = section[command] else { continue }
            let names = try keyNames(value, command: command, context: context, line: line)
            var keys: [Key] = []
            for name in names {
                guard let key = Key(name: name) else {
                    throw KeysFileError(line: line, "unknown key \(shown(name)) for \(shown(command))")
                }
                if let other = owner[key], other != command {
                    throw KeysFileError(line: line, "key \(shown(name)) is given to both \(shown(other)) and \(shown(command)) in [\(context.prefix(40))]")
                }
                owner[key] = command
                if !keys.contains(key) { keys.append(key) }
            }
            result.append(KeyOverride(context: context, command: command, keys: keys))
        }
        return result
    }

    /// A string, or an array of strings (an empty one unbinds the command).
    private static func keyNames(_ value: any TOMLValueConvertible, command: String, context: String, line: Int?)
        throws(KeysFileError) -> [String] {
        let wrongType = KeysFileError(
            line: line, "\(shown(command)) in [\(context.prefix(40))] must be a key name or a list of key names, like \"f\" or [\"f\", \"ctrl-f\"]")
        if let name = value.string { return [name] }
        guard let array = value.array else { throw wrongType }
        var names: [String] = []
        for element in array {
            guard let name = element.string else { throw wrongType }
            names.append(name)
        }
        return names
    }

    /// `'name'`, cut at 40 characters: a name in an error line is for recognising, not for printing a whole file.
    private static func shown(_ name: String) -> String {
        "'" + (name.count > 40 ? name.prefix(40) + "…" : name) + "'"
    }
}
