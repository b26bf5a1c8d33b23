import Foundation
/// Where a value sits in a JSON document, written as JSONPath: `$.items[3].price`, `$['content-type']`.
package struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step down: an object member or an array element.
    package enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    package var components: [Component]

    /// `$`, the whole document.
    package static let root = JSONPath(components: [])

    package init(components: [Component]) { self.components = components }

    package func appending(_ component: Component) -> JSONPath {
        JSONPath(components: components + [component])
    }

    /// Keys that are identifiers use dot notation; any other key is bracketed and single-quoted.
    package var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let index): text += "[\(index)]"
            case .key(let key) where Self.isIdentifier(key): text += "." + key
            case .key(let key): text += "['" + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "']"
            }
        }
        return text
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`: the keys written after a dot.
    static func isIdentifier(_ key: String) -> Bool {
        func isLetter(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
        }
        guard let first = key.unicodeScalars.first, isLetter(first) else { return false }
        return key.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }
}
