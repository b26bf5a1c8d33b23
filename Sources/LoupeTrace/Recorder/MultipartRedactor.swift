import Foundation

/// Redacts a `multipart/form-data` (or any `multipart/`) body part by part: a part whose `name` is a credential
/// field or query item name (`name="password"`) has its content replaced with ``RedactionPolicy/marker``, and any
/// other part's content is redacted as a body of its own type (a JSON part by its fields). Every byte outside the
/// redacted contents stays as it was; a body whose boundary is not found is returned unchanged (`nil`).
enum MultipartRedactor {
    static func redact(_ body: Data, contentType: String, policy: RedactionPolicy,
                       collecting secrets: inout SecretCollector) -> Data? {
        guard let boundary = boundary(in: contentType) else { return nil }
        let bytes = [UInt8](body)
        let delimiter = Array("--\(boundary)".utf8)
        var starts: [Int] = []
        var from = 0
        while let found = find(delimiter, in: bytes, from: from) {
            // A delimiter starts the body or a line.
            if found == 0 || bytes[found - 1] == 0x0A { starts.append(found) }
            from = found + delimiter.count
        }
        guard starts.count >= 2 else { return nil }
        let names = policy.jsonFieldNames.union(policy.headerNames)
        var output: [UInt8] = []
        var copied = 0
        for (first, next) in zip(starts, starts.dropFirst()) {
            // The part: after the delimiter's line, up to the line break before the next delimiter.
            guard let lineEnd = bytes[(first + delimiter.count)..<next].firstIndex(of: 0x0A) else { continue }
            let partStart = lineEnd + 1
            var partEnd = next
            if partEnd > partStart, bytes[partEnd - 1] == 0x0A { partEnd -= 1 }
            if partEnd > partStart, bytes[partEnd - 1] == 0x0D { partEnd -= 1 }
            guard partStart < partEnd, let headEnd = endOfHead(bytes, from: partStart, to: partEnd) else { continue }
            let head = String(decoding: bytes[partStart..<headEnd.head], as: UTF8.self)
            let content = Data(bytes[headEnd.content..<partEnd])
            let replacement: Data
            if let name = parameter("name", inHeader: "content-disposition", of: head), names.contains(name) {
                guard content != Data(RedactionPolicy.marker.utf8) else { continue }
                if let text = String(data: content, encoding: .utf8) { secrets.add(text) }
                replacement = Data(RedactionPolicy.marker.utf8)
            } else {
                let type = headerValue("content-type", of: head)
                // A file part without a type is not a form; text and JSON parts are redacted as such.
                guard type != nil else { continue }
                replacement = policy.redact(body: content, contentType: type, collecting: &secrets)
                if replacement == content { continue }
            }
            output.append(contentsOf: bytes[copied..<headEnd.content])
            output.append(contentsOf: replacement)
            copied = partEnd
        }
        guard copied > 0 else { return nil }
        output.append(contentsOf: bytes[copied...])
        return Data(output)
    }

    /// The `boundary` parameter of a multipart content type, unquoted.
    static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty || value.utf8.count > 200 ? nil : value
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// Where a part's headers end (the blank line) and its content starts.
    private static func endOfHead(_ bytes: [UInt8], from start: Int, to end: Int) -> (head: Int, content: Int)? {
        var index = start
        while index < end {
            if bytes[index] == 0x0A {
                if index + 1 < end, bytes[index + 1] == 0x0A { return (index, index + 2) }
                if index + 2 < end, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return (index, index + 3) }
                if index + 1 == end { return (index, end) }
            }
            index += 1
        }
        return nil
    }

    private static func headerValue(_ name: String, of head: String) -> String? {
        for line in head.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":"),
                  line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// A parameter of a part header, `form-data; name="password"` → `password`.
    private static func parameter(_ key: String, inHeader header: String, of head: String) -> String? {
        guard let value = headerValue(header, of: head) else { return nil }
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == key else { continue }
            var name = pair[1].trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
            return name
        }
        return nil
    }
}
