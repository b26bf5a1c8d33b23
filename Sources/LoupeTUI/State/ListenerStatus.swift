import Foundation

/// What `loupe tui --listen`'s listener says about itself, read on each poll: the link string apps are given, and
/// the connections it refused. The listener is the source of truth; the TUI keeps only the last reading.
package struct ListenerStatus: Hashable, Sendable {
    /// `LOUPE_LINK=loupe://SECRET@HOST:PORT?fp=sha256:…`: the whole line an app is given.
    package var link: String
    /// Connections refused so far (a wrong secret, a peer that never said hello, a full listener).
    package var refused: Int
    /// The listener's line about the latest refusal, if any.
    package var lastRefusal: String?

    package init(link: String, refused: Int = 0, lastRefusal: String? = nil) {
        self.link = link
        self.refused = refused
        self.lastRefusal = lastRefusal
    }
}
