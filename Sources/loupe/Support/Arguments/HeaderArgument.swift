import Foundation
import ArgumentParser
import HTTPTypes

/// A header typed as `-H 'Name: value'`: the name must be a valid field name; the value is trimmed.
struct HeaderArgument: Sendable, Hashable, CustomStringConvertible {
    let field: HTTPField

    var description: String { "\(field.name.rawName): \(field.value)" }

    static func parse(_ text: String) throws(ArgumentValueError) -> HeaderArgument {
        guard let colon = text.firstIndex(of: ":"),
              let name = HTTPField.Name(String(text[..<colon]).trimmingCharacters(in: .whitespaces)) else {
            throw ArgumentValueError(expected: "a header 'Name: value'", got: text)
        }
        let value = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        // HTTPField would silently turn a CR, LF or NUL in the value into a space: refused instead.
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw ArgumentValueError(expected: "a header 'Name: value' on one line", got: text)
        }
        return HeaderArgument(field: HTTPField(name: name, value: value))
    }

    /// The headers as fields, in the order typed.
    static func fields(_ headers: [HeaderArgument]) -> HTTPFields {
        HTTPFields(headers.map(\.field))
    }
}

extension HeaderArgument: ExpressibleByArgument {
    init?(argument: String) {
        guard let value = try? Self.parse(argument) else { return nil }
        self = value
    }
}
