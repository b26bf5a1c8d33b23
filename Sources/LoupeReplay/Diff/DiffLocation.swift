import LoupeTrace

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
    /// A stream's server message by its place among the server's messages (from 0): its type and payload as a
    /// whole (`nil`), or a place in its JSON payload. `--ignore $.price` leaves out that place in every message,
    /// and `--ignore body` every message's payload.
    case message(Int, JSONPath?)
    /// How many messages the server sent.
    case messages

    package var description: String {
        switch self {
        case .status: "status"
        case .header(let name): "header:" + name
        case .body: "body"
        case .json(let path): path.description
        case .message(let index, let path?): "message[\(index)] \(path)"
        case .message(let index, nil): "message[\(index)]"
        case .messages: "messages"
        }
    }

    /// Whether this location is `other` or lies inside it: `$.meta.id` is within `$.meta`, and every JSON path is
    /// within `body`.
    package func isWithin(_ other: DiffLocation) -> Bool {
        switch (self, other) {
        case (.status, .status), (.body, .body), (.json, .body): true
        case (.header(let name), .header(let outer)): name.lowercased() == outer.lowercased()
        case (.json(let path), .json(let outer)): path.components.starts(with: outer.components)
        case (.message, .body), (.messages, .messages): true
        case (.message(_, let path?), .json(let outer)): path.components.starts(with: outer.components)
        case (.message(let index, let path), .message(let outer, let outerPath)):
            index == outer && (outerPath.map { outerPath in path?.components.starts(with: outerPath.components) ?? false } ?? true)
        default: false
        }
    }

    package static func == (lhs: DiffLocation, rhs: DiffLocation) -> Bool {
        switch (lhs, rhs) {
        case (.status, .status), (.body, .body): true
        case (.header(let left), .header(let right)): left.lowercased() == right.lowercased()
        case (.json(let left), .json(let right)): left == right
        case (.message(let left, let leftPath), .message(let right, let rightPath)): left == right && leftPath == rightPath
        case (.messages, .messages): true
        default: false
        }
    }

    package func hash(into hasher: inout Hasher) {
        switch self {
        case .status: hasher.combine(0)
        case .header(let name): hasher.combine(1); hasher.combine(name.lowercased())
        case .body: hasher.combine(2)
        case .json(let path): hasher.combine(3); hasher.combine(path)
        case .message(let index, let path): hasher.combine(4); hasher.combine(index); hasher.combine(path)
        case .messages: hasher.combine(5)
        }
    }
}
