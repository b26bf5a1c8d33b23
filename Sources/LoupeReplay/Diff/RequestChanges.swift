import Foundation
import Loupe
import LoupeTrace

/// How a request differs from the one it was made from, one short phrase per change: the edit `e` is about to
/// send, or what a replay sent beside its original. Header values are left out (a value typed into the editor may
/// be a credential); names, sizes and the target are enough to recognise an edit.
package enum RequestChanges {
    /// `method GET → PUT`, `URL /a → /b?x=1`, `header X-Trace added`, `header Accept removed`,
    /// `header Accept changed`, `body 20 → 25 bytes`, in that order; empty when the requests are the same.
    /// Headers named in `ignoring` (lowercased) are not compared.
    package static func summary(from old: TraceExchange, to new: TraceExchange,
                                ignoring ignored: Set<String> = []) -> [String] {
        var result: [String] = []
        if old.method != new.method { result.append("method \(old.method) → \(new.method)") }
        if old.url != new.url {
            let sameOrigin = URLComponents(string: old.url).map { ($0.scheme, $0.host, $0.port) }.map { origin in
                URLComponents(string: new.url).map { ($0.scheme, $0.host, $0.port) == origin } ?? false } ?? false
            result.append(sameOrigin ? "URL \(old.pathAndQuery) → \(new.pathAndQuery)" : "URL \(old.url) → \(new.url)")
        }
        for difference in HeaderDiff.differences(old.requestHeaders, new.requestHeaders, ignoring: ignored) {
            guard case .header(let name) = difference.location else { continue }
            switch difference.change {
            case .added: result.append("header \(name) added")
            case .removed: result.append("header \(name) removed")
            default: result.append("header \(name) changed")
            }
        }
        let before = old.requestBody?.data ?? Data(), after = new.requestBody?.data ?? Data()
        if before != after {
            result.append(before.count == after.count ? "body changed (\(Quantity.count(after.count, "byte")))"
                : "body \(before.count) → \(Quantity.count(after.count, "byte"))")
        }
        return result
    }
}
