import LoupeTrace

/// An exchange's header list as the export meets it: parsed (``TraceHeader``s), or as stored in the exact form
/// ``StoredHeaderText`` reads, whose escaped names and values are copied into the file as they are.
///
/// Either way the entry gets what ``HARExporter`` derives from the parsed list: the first `Content-Type` and
/// `Location` (names compared as ``HARHeaders/isNamed(_:_:)`` compares them), and cookies from the `Cookie` or
/// `Set-Cookie` headers, which are decoded for that.
enum HARHeaderSource {
    case parsed([TraceHeader])
    case stored(StoredHeaderText)

    /// What an entry takes from the headers besides the list itself.
    struct Derived {
        var contentType: String?
        var location: String?
        /// The headers named `cookie` (or `set-cookie`, as asked), decoded, in order.
        var cookieHeaders: [TraceHeader] = []
    }

    var isEmpty: Bool {
        switch self {
        case .parsed(let headers): headers.isEmpty
        case .stored(let stored): stored.text.utf8.count == 2
        }
    }

    /// - Parameter cookieName: `cookie` for a request, `set-cookie` for a response.
    func derived(cookieName: String, wantsLocation: Bool) -> Derived {
        switch self {
        case .parsed(let headers):
            return Derived(
                contentType: HARHeaders.value(of: "content-type", in: headers),
                location: wantsLocation ? HARHeaders.value(of: "location", in: headers) : nil,
                cookieHeaders: headers.filter { HARHeaders.isNamed($0.name, cookieName) })
        case .stored(let stored):
            var derived = Derived()
            stored.forEach { name, value in
                switch Self.kind(of: name, cookieName: cookieName) {
                case .contentType where derived.contentType == nil:
                    derived.contentType = StoredHeaderText.unescaped(value)
                case .cookie:
                    derived.cookieHeaders.append(TraceHeader(name: StoredHeaderText.unescaped(name),
                                                             value: StoredHeaderText.unescaped(value)))
                case .location where wantsLocation && derived.location == nil:
                    derived.location = StoredHeaderText.unescaped(value)
                default:
                    break
                }
            }
            return derived
        }
    }

    private enum Kind {
        case contentType, cookie, location, other
    }

    /// Which of the names an entry looks for an escaped name is (``HARHeaders/isNamed(_:_:)``): compared in place
    /// when it is ASCII without escapes, where only a name of the same length can match.
    private static func kind(of escaped: UnsafeBufferPointer<UInt8>, cookieName: String) -> Kind {
        var isPlainASCII = true
        for byte in escaped where byte >= 0x80 || byte == UInt8(ascii: "\\") {
            isPlainASCII = false
            break
        }
        guard isPlainASCII else {
            let name = StoredHeaderText.unescaped(escaped)
            if HARHeaders.isNamed(name, "content-type") { return .contentType }
            if HARHeaders.isNamed(name, cookieName) { return .cookie }
            return HARHeaders.isNamed(name, "location") ? .location : .other
        }
        if equalsLowercased(escaped, "content-type") { return .contentType }
        if equalsLowercased(escaped, cookieName) { return .cookie }
        return equalsLowercased(escaped, "location") ? .location : .other
    }

    /// Whether ASCII `bytes`, lower-cased, are `lowercase`.
    private static func equalsLowercased(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: String) -> Bool {
        var lowercase = lowercase
        return lowercase.withUTF8 { target in
            guard bytes.count == target.count else { return false }
            for index in 0..<bytes.count {
                let byte = bytes[index]
                let lowered = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                guard lowered == target[index] else { return false }
            }
            return true
        }
    }

    /// The list as HAR's `headers`: `{"name", "value"}` objects in order.
    func write(to out: HARBytes) {
        switch self {
        case .parsed(let headers):
            HAREntryWriter.writeObjects(headers, to: out) { header in
                out.member("name", header.name)
                out.member("value", header.value)
            }
        case .stored(let stored):
            let list = out.open(HAREntryWriter.openBracket)
            stored.forEach { name, value in
                out.element()
                let item = out.open(HAREntryWriter.openBrace)
                out.key("name")
                out.string(escaped: name)
                out.key("value")
                out.string(escaped: value)
                out.close(HAREntryWriter.closeBrace, item)
            }
            out.close(HAREntryWriter.closeBracket, list)
        }
    }
}
