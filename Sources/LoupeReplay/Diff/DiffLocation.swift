/// What part of a response a difference is in, written the way `--ignore` takes it: `status`,
/// `header:ETag`, `body` (a text or binary body as a whole) or a JSON path into a JSON body (`$.items[3].price`).
package enum DiffLocation: Sendable, Hashable, CustomStringConvertible {
    case status
    /// A response header, by name as recorded; names compare without regard to case.
    case header(String)
    /// A body compared as text or bytes, not as JSON.
    case body
    /// A place in a JSON body.
    case json(JSONPath)

    package var description: String {
        switch self {
        case .status: "status"
        case .header(let name): "header:" + name
        case .body: "body"
        case .json(let path): path.description
        }
    }

    /// Whether this location is `other` or lies inside it: `$.meta.id` is within `$.meta`, and every JSON path is
    /// within `body`.
    package func isWithin(_ other: DiffLocation) -> Bool {
        switch (self, other) {
        case (.status, .status), (.body, .body), (.json, .body): true
        case (.header(let name), .header(let outer)): name.lowercased() == outer.lowercased()
        case (.json(let path), .json(let outer)): path.components.starts(with: outer.components)
        default: false
        }
    }

    package static func == (lhs: DiffLocation, rhs: DiffLocation) -> Bool {
        switch (lhs, rhs) {
        case (.status, .status), (.body, .body): true
        case (.header(let left), .header(let right)): left.lowercased() == right.lowercased()
        case (.json(let left), .json(let right)): left == right
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .status: hasher.combine(0)
        case .header(let name): hasher.combine(1); hasher.combine(name.lowercased())
        case .body: hasher.combine(2)
        case .json(let path): hasher.combine(3); hasher.combine(path)
        }
    }
}
