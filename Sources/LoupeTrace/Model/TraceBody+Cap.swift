import Foundation

extension TraceBody {
    /// This body cut to its first `cap` bytes and marked truncated when it is longer (its ``size`` stays the whole
    /// body's): the recorder's cap, and the listener's on bodies an app sends over the link.
    package func capped(at cap: Int) -> TraceBody {
        let limit = max(0, cap)
        guard data.count > limit else { return self }
        var body = self
        body.data = Data(data.prefix(limit))
        body.isTruncated = true
        return body
    }
}
