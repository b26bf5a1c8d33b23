import Foundation
import LoupeTrace

/// What a cassette stores for an exchange: secrets replaced by their placeholders, then the redaction policy
/// applied, then the placeholders the policy redacted by name put back.
///
/// The policy redacts by name (`Authorization`, `access_token`…) whatever the value, so `Bearer <TOKEN>` would be
/// stored as `[REDACTED]` and could not be restored on playback. After redacting, each marker the policy wrote is
/// compared with what it replaced; when that was nothing but placeholders (and at most an auth scheme before them:
/// `Bearer <TOKEN>`), the placeholders are written instead of the marker. Only the redacted text is ever edited,
/// and only into placeholders and a scheme word, so however the two texts align nothing the policy removed can
/// come back.
struct CassetteRedactor: Sendable {
    let secrets: CassetteSecrets
    let policy: RedactionPolicy

    /// Texts longer than this are left as the policy wrote them (the alignment is quadratic in the worst case).
    static let alignmentLimit = 1 << 20

    /// The exchange as the cassette stores and compares it.
    func stored(_ exchange: TraceExchange) -> TraceExchange {
        let hidden = secrets.hide(exchange)
        var redacted = policy.redact(exchange: hidden)
        guard !secrets.isEmpty else { return Self.sized(redacted) }
        let placeholders = secrets.placeholderBytes
        func keep(_ text: String, _ original: String) -> String {
            String(decoding: Self.keepingPlaceholders(Array(text.utf8), original: Array(original.utf8), placeholders: placeholders),
                   as: UTF8.self)
        }
        redacted.url = keep(redacted.url, hidden.url)
        for keyPath in [\TraceExchange.requestHeaders, \TraceExchange.responseHeaders]
        where redacted[keyPath: keyPath].count == hidden[keyPath: keyPath].count {
            for index in redacted[keyPath: keyPath].indices {
                redacted[keyPath: keyPath][index].value = keep(redacted[keyPath: keyPath][index].value, hidden[keyPath: keyPath][index].value)
            }
        }
        for keyPath in [\TraceExchange.requestBody, \TraceExchange.responseBody] {
            guard let body = redacted[keyPath: keyPath], let original = hidden[keyPath: keyPath] else { continue }
            let kept = Self.keepingPlaceholders([UInt8](body.data), original: [UInt8](original.data), placeholders: placeholders)
            redacted[keyPath: keyPath]?.data = Data(kept)
        }
        if let messages = redacted.stream?.messages, let original = hidden.stream?.messages, messages.count == original.count {
            for index in messages.indices {
                let kept = Self.keepingPlaceholders([UInt8](messages[index].payload), original: [UInt8](original[index].payload),
                                                    placeholders: placeholders)
                redacted.stream!.messages[index].payload = Data(kept)
            }
        }
        return Self.sized(redacted)
    }

    /// Bodies are stored whole: their size is what they hold now.
    private static func sized(_ exchange: TraceExchange) -> TraceExchange {
        var exchange = exchange
        for keyPath in [\TraceExchange.requestBody, \TraceExchange.responseBody] {
            guard let body = exchange[keyPath: keyPath], !body.isTruncated else { continue }
            exchange[keyPath: keyPath]?.size = body.data.count
        }
        return exchange
    }

    // MARK: Alignment

    private enum Token: Equatable {
        case byte(UInt8)
        case marker(Int)
        case placeholder(Int)
    }

    private static let markers = [Array(RedactionPolicy.marker.utf8), Array(RedactionPolicy.urlMarker.utf8)]

    /// `redacted` with each marker that replaced only placeholders in `original` turned back into them.
    static func keepingPlaceholders(_ redacted: [UInt8], original: [UInt8], placeholders: [[UInt8]]) -> [UInt8] {
        guard redacted != original, redacted.count <= alignmentLimit, original.count <= alignmentLimit else { return redacted }
        let new = tokens(redacted, placeholders: placeholders)
        let old = tokens(original, placeholders: placeholders)
        guard new.contains(where: { if case .marker = $0 { true } else { false } }) else { return redacted }
        var result: [UInt8] = []
        var oldIndex = 0
        var newIndex = 0
        while newIndex < new.count {
            if oldIndex < old.count, old[oldIndex] == new[newIndex] {
                append(new[newIndex], to: &result, placeholders: placeholders)
                oldIndex += 1
                newIndex += 1
                continue
            }
            // Anything else the policy changed is not a marker: leave its text alone.
            guard case .marker = new[newIndex] else { return redacted }
            let next = new[(newIndex + 1)...].firstIndex { if case .marker = $0 { true } else { false } } ?? new.count
            let anchor = new[(newIndex + 1)..<next]
            let resume: Int?
            if anchor.isEmpty {
                resume = next == new.count ? old.count : nil  // two markers side by side: no telling where one ends
            } else if old.count - anchor.count >= oldIndex {
                resume = (oldIndex...(old.count - anchor.count)).first { old[$0...].starts(with: anchor) }
            } else {
                resume = nil
            }
            guard let resume else {
                append(new[newIndex], to: &result, placeholders: placeholders)
                newIndex += 1
                continue
            }
            let replaced = old[oldIndex..<resume]
            if isOnlyPlaceholders(replaced, placeholders: placeholders) {
                for token in replaced { append(token, to: &result, placeholders: placeholders) }
            } else {
                append(new[newIndex], to: &result, placeholders: placeholders)
            }
            oldIndex = resume
            newIndex += 1
        }
        return result
    }

    /// Placeholders, white space, and at most one auth scheme before the first placeholder (`Bearer <TOKEN>`).
    private static func isOnlyPlaceholders(_ tokens: ArraySlice<Token>, placeholders: [[UInt8]]) -> Bool {
        guard let first = tokens.firstIndex(where: { if case .placeholder = $0 { true } else { false } }) else { return false }
        var prefix: [UInt8] = []
        for (offset, token) in zip(tokens.indices, tokens) {
            switch token {
            case .placeholder: continue
            case .marker: return false
            case .byte(let byte):
                if offset < first { prefix.append(byte) } else if !isSpace(byte) { return false }
            }
        }
        let scheme = String(decoding: prefix, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return scheme.isEmpty || (authSchemes.contains(scheme.lowercased()) && prefix.last.map(isSpace) == true)
    }

    private static let authSchemes: Set<String> = ["bearer", "basic", "token"]

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    private static func tokens(_ bytes: [UInt8], placeholders: [[UInt8]]) -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(bytes.count)
        var index = 0
        scan: while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "<") {
                for (kind, list) in [(0, markers), (1, placeholders)] {
                    for (number, pattern) in list.enumerated() where bytes[index...].starts(with: pattern) {
                        tokens.append(kind == 0 ? .marker(number) : .placeholder(number))
                        index += pattern.count
                        continue scan
                    }
                }
            }
            tokens.append(.byte(byte))
            index += 1
        }
        return tokens
    }

    private static func append(_ token: Token, to result: inout [UInt8], placeholders: [[UInt8]]) {
        switch token {
        case .byte(let byte): result.append(byte)
        case .marker(let number): result.append(contentsOf: markers[number])
        case .placeholder(let number): result.append(contentsOf: placeholders[number])
        }
    }
}
