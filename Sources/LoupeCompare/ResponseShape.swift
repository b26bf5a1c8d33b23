import Foundation
import LoupeReplay
import LoupeTrace

/// The shape of an operation's JSON responses, learned from all of them: each path (`$.items[*].price`, array
/// elements folded into `[*]`) with how many documents had it and how often each type was seen there. Knowing how
/// often a field appears is what keeps an optional field from reading as drift.
///
/// Bounded: at most ``maximumPaths`` paths (further ones are counted, not kept) and ``maximumDepth`` levels.
package struct ResponseShape: Sendable, Equatable {
    /// The JSON types a path can hold.
    package enum Kind: Int, Sendable, CaseIterable, Comparable {
        case null, bool, number, string, array, object

        package var name: String {
            switch self {
            case .null: "null"
            case .bool: "boolean"
            case .number: "number"
            case .string: "string"
            case .array: "array"
            case .object: "object"
            }
        }

        init(_ value: JSONValue) {
            switch value {
            case .null: self = .null
            case .bool: self = .bool
            case .number: self = .number
            case .string: self = .string
            case .array: self = .array
            case .object: self = .object
            }
        }

        package static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What was seen at one path.
    package struct PathFacts: Sendable, Equatable {
        /// Documents that had the path at least once.
        package var documents = 0
        /// Values seen, by type (an array's elements each count).
        package var kinds = [Int](repeating: 0, count: Kind.allCases.count)
        /// The document that last counted here, so a path inside an array counts once per document.
        var lastDocument = -1

        package var seenKinds: [Kind] { Kind.allCases.filter { kinds[$0.rawValue] > 0 } }
    }

    package static let maximumPaths = 512
    package static let maximumDepth = 16

    /// JSON documents learned from (bodies that parsed).
    package private(set) var documents = 0
    package private(set) var paths: [String: PathFacts] = [:]
    /// Paths seen but not kept, past ``maximumPaths``.
    package private(set) var pathsLeftOut = 0

    package init() {}

    /// Learns from one response body; a body that is not JSON teaches nothing.
    package mutating func learn(_ body: Data) {
        guard let value = JSONParser.parse(body) else { return }
        learn(value)
    }

    /// Learns from one parsed document.
    package mutating func learn(_ document: JSONValue) {
        let index = documents
        documents += 1
        var pending: [(path: String, value: JSONValue, depth: Int)] = [("$", document, 0)]
        while let (path, value, depth) = pending.popLast() {
            record(path, Kind(value), document: index)
            guard depth < Self.maximumDepth else { continue }
            switch value {
            case .object(let object):
                for key in object.keys {
                    guard let member = object[key] else { continue }
                    pending.append((path + Self.member(key), member, depth + 1))
                }
            case .array(let elements):
                for element in elements { pending.append((path + "[*]", element, depth + 1)) }
            default:
                break
            }
        }
    }

    private mutating func record(_ path: String, _ kind: Kind, document: Int) {
        if paths[path] == nil {
            guard paths.count < Self.maximumPaths else { return pathsLeftOut += 1 }
            paths[path] = PathFacts()
        }
        paths[path]!.kinds[kind.rawValue] += 1
        if paths[path]!.lastDocument != document {
            paths[path]!.lastDocument = document
            paths[path]!.documents += 1
        }
    }

    /// `.key`, or `['odd key']`, as ``JSONPath`` writes a member.
    static func member(_ key: String) -> String {
        String(JSONPath(components: [.key(key)]).description.dropFirst())
    }
}
