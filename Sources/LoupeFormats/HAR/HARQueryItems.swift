import Foundation
import LoupeTrace

/// A HAR request's `queryString`: what `URLComponents(string:)?.queryItems` gives for the URL (values of items
/// without `=` empty), cut out by hand for plain URLs.
///
/// Plain here is ``PlainURLPrefix``, then a query of path bytes, `?` and `%XX` escapes of ASCII bytes: for those,
/// `URLComponents` splits the query at every `&`, each item at its first `=`, and decodes the escapes. Anything
/// else (a fragment, a user, an IP literal, an `xn--` host, bytes past ASCII, an escape of one, a malformed escape)
/// goes to `URLComponents`, so the items are always what it gives; parsing every URL with it was a tenth of an
/// export.
enum HARQueryItems {
    static func items(of url: String) -> [HARNameValue] {
        // Without a `?` there is no query to parse.
        guard url.utf8.contains(UInt8(ascii: "?")) else { return [] }
        if let items = plainItems(url) { return items }
        return (URLComponents(string: url)?.queryItems ?? []).map { HARNameValue(name: $0.name, value: $0.value ?? "") }
    }

    /// The items of a plain URL, or `nil` when `URLComponents` must decide.
    static func plainItems(_ url: String) -> [HARNameValue]? {
        var url = url
        return url.withUTF8 { bytes -> [HARNameValue]? in
            guard let queryStart = plainQueryStart(bytes) else { return nil }
            guard queryStart < bytes.count else { return [] }
            var items: [HARNameValue] = []
            var itemStart = queryStart
            for index in queryStart...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "&") {
                let item = UnsafeBufferPointer(rebasing: bytes[itemStart..<index])
                if let equals = item.firstIndex(of: UInt8(ascii: "=")) {
                    items.append(HARNameValue(name: decoded(UnsafeBufferPointer(rebasing: item[..<equals])),
                                              value: decoded(UnsafeBufferPointer(rebasing: item[(equals + 1)...]))))
                } else {
                    items.append(HARNameValue(name: decoded(item), value: ""))
                }
                itemStart = index + 1
            }
            return items
        }
    }

    /// Where the query of a plain URL (``PlainURLPrefix``, then `?`) starts, or `nil` when the URL is not plain.
    private static func plainQueryStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let (_, path) = PlainURLPrefix.scan(bytes), path.upperBound < bytes.count,
              bytes[path.upperBound] == UInt8(ascii: "?") else { return nil }
        let queryStart = path.upperBound + 1
        var index = queryStart
        // Query: path bytes, `?`, and escapes of ASCII bytes; no fragment.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = ASCIIBytes.hexValue(bytes[index + 1]), high < 8,
                      ASCIIBytes.hexValue(bytes[index + 2]) != nil else { return nil }
                index += 3
                continue
            }
            guard byte == UInt8(ascii: "?") || ASCIIBytes.isPathByte(byte) else { return nil }
            index += 1
        }
        return queryStart
    }

    /// The text of `bytes` with its (checked) `%XX` escapes decoded.
    private static func decoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), let high = ASCIIBytes.hexValue(bytes[index + 1]), let low = ASCIIBytes.hexValue(bytes[index + 2]) {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
