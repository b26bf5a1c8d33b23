import Foundation

/// What `loupe tui --serve`'s server says about itself: where it answers, for the title bar, and its start line
/// (how many recordings, from where, what happens to a miss), for the status line when the TUI opens.
package struct ServingStatus: Hashable, Sendable {
    /// `http://127.0.0.1:8080`: where clients call it.
    package var address: String
    /// The line `loupe serve` prints when it starts.
    package var summary: String

    package init(address: String, summary: String) {
        self.address = address
        self.summary = summary
    }
}
