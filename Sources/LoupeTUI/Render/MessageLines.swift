/// A status message too long for its line goes on over the footer's (the key hints come back with the next
/// key): a rejected edit or a filter error says where the problem is, and a cut at the screen's edge hid it.
enum MessageLines {
    /// `text` as the part that fits `width` columns, broken after a space where one is in the second half, and
    /// the rest, if any, cut to `nextWidth` with `…`.
    static func split(_ text: String, width: Int, nextWidth: Int) -> (first: String, rest: String?) {
        guard width > 0, DisplayWidth.of(text) > width else { return (text, nil) }
        // The widest prefix that fits: truncating to one column more leaves `width` columns and the `…`.
        var first = DisplayWidth.truncate(text, to: width + 1)
        if first.hasSuffix("…") { first.removeLast() }
        var cut = first.count
        if let space = first.lastIndex(of: " "), first.distance(from: first.startIndex, to: space) * 2 >= first.count {
            cut = first.distance(from: first.startIndex, to: space)
        }
        let head = String(text.prefix(cut))
        let rest = " " + String(text.dropFirst(cut)).drop { $0 == " " }
        return (head, DisplayWidth.truncate(String(rest), to: max(0, nextWidth)))
    }
}
