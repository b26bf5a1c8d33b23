import Foundation
import LoupeTrace

/// Turns a `DecodingError` from reading a HAR into a one-line ``HARImportError`` that names the place.
enum HARDecodingFailure {
    static func describe(_ error: DecodingError, in data: Data) -> HARImportError {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return syntaxError(in: data)
        case .dataCorrupted(let context):
            return located(context.codingPath, ": " + context.debugDescription)
        case .keyNotFound(let key, let context):
            return located(context.codingPath + [key], " is missing")
        case .valueNotFound(_, let context):
            return located(context.codingPath, " is null")
        case .typeMismatch(let type, let context):
            return located(context.codingPath, " is not \(kind(of: type))")
        @unknown default:
            return HARImportError(code: .malformedJSON, message: "cannot read the HAR: \(error)")
        }
    }

    /// An error decoding entry `index` alone, named as decoding the whole document named it
    /// (`log.entries[3].request.url is missing`).
    static func describe(_ error: DecodingError, inEntry index: Int) -> HARImportError {
        let prefix: [any CodingKey] = [Key("log"), Key("entries"), Key(index)]
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // The reader checked the entry's syntax as the decoder does, so this is not expected.
            return HARImportError(code: .malformedJSON, message: "log.entries[\(index)] is not valid JSON")
        case .dataCorrupted(let context):
            return located(prefix + context.codingPath, ": " + context.debugDescription)
        case .keyNotFound(let key, let context):
            return located(prefix + context.codingPath + [key], " is missing")
        case .valueNotFound(_, let context):
            return located(prefix + context.codingPath, " is null")
        case .typeMismatch(let type, let context):
            return located(prefix + context.codingPath, " is not \(kind(of: type))")
        @unknown default:
            return HARImportError(code: .invalidEntry, message: "log.entries[\(index)]: \(error)")
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(_ name: String) { stringValue = name }
        init(_ index: Int) {
            stringValue = String(index)
            intValue = index
        }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { self.init(intValue) }
    }

    /// Errors at the top (`log`, `log.entries`) mean the file is not a HAR; deeper ones name the entry's field.
    private static func located(_ path: [any CodingKey], _ problem: String) -> HARImportError {
        let text = render(path)
        if path.count <= 2, path.first.map({ $0.stringValue == "log" }) ?? true {
            switch text {
            case "": return .notHAR("the top level is not a JSON object")
            case "log": return .notHAR(problem == " is missing" ? "there is no \"log\" object" : "log" + problem)
            default: return .notHAR(text + problem)
            }
        }
        return HARImportError(code: .invalidEntry, message: text + problem)
    }

    /// `log.entries[3].request.url`
    static func render(_ path: [any CodingKey]) -> String {
        path.reduce(into: "") { text, key in
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
    }

    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "a boolean"
        case is [Any].Type: "an array"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }

    /// JSONDecoder does not say where the syntax breaks; JSONSerialization does (only run on this failure path).
    private static func syntaxError(in data: Data) -> HARImportError {
        let detail: String
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return HARImportError(code: .malformedJSON, message: "not valid JSON")
        } catch {
            detail = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String)
                ?? (error as NSError).localizedDescription
        }
        if detail.lowercased().contains("end of file") || detail.lowercased().contains("unexpected end") {
            return HARImportError(
                code: .truncated,
                message: "the file is truncated: the JSON ends at byte \(data.count) before it is complete")
        }
        guard let offset = byteOffset(in: detail), offset <= data.count else {
            return HARImportError(code: .malformedJSON, message: "not valid JSON: \(detail)")
        }
        let (line, column) = lineAndColumn(of: offset, in: data)
        var problem = detail
        if let range = problem.range(of: " around character") ?? problem.range(of: " at \(offset)") {
            problem = String(problem[..<range.lowerBound])
        }
        return HARImportError(
            code: .malformedJSON,
            message: "not valid JSON at byte \(offset) (line \(line), column \(column)): \(problem.lowercased())",
            byteOffset: offset)
    }

    /// The number in "… around character 23." or "… at 9.".
    private static func byteOffset(in detail: String) -> Int? {
        for marker in ["around character ", " at "] {
            guard let range = detail.range(of: marker, options: .backwards) else { continue }
            let digits = detail[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
            if let offset = Int(digits) { return offset }
        }
        return nil
    }

    /// 1-based line and column (in bytes) of `offset`.
    private static func lineAndColumn(of offset: Int, in data: Data) -> (Int, Int) {
        var line = 1
        var lineStart = 0
        for (index, byte) in data.prefix(offset).enumerated() where byte == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return (line, offset - lineStart + 1)
    }
}
