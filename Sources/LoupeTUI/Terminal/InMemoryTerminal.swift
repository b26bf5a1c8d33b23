/// A terminal in memory, for tests and examples: a size you can change, a queue of keys, and the last buffer drawn.
///
/// ```swift
/// let terminal = InMemoryTerminal(width: 80, height: 24)
/// terminal.press("j", .enter)
/// _ = await app.turn(on: terminal, waitingUpTo: .zero)
/// #expect(terminal.text.contains("Response headers"))
/// ```
/// It never waits: ``nextKey(timeout:)`` returns the next queued key or `nil` at once.
package final class InMemoryTerminal: Terminal {
    /// The size, as a terminal would report it.
    package private(set) var size: Size
    /// Keys not yet read, first first.
    package private(set) var pendingKeys: [Key] = []
    /// The last buffer drawn.
    package private(set) var lastBuffer: Buffer?
    /// How many times ``draw(_:)`` was called.
    package private(set) var drawCount = 0

    /// A terminal of `width`×`height` cells.
    package init(width: Int = 80, height: Int = 24) {
        self.size = Size(width: width, height: height)
    }

    /// Queues keys to be read in order.
    package func press(_ keys: Key...) {
        pendingKeys += keys
    }

    /// Queues one `.char` key per character of `text`.
    package func type(_ text: String) {
        pendingKeys += text.map(Key.char)
    }

    /// Queues `text` as one bracketed paste, as a terminal delivers it.
    package func paste(_ text: String) {
        pendingKeys.append(.paste(text))
    }

    /// Changes the size and queues `.resize`, as a terminal does.
    package func resize(width: Int, height: Int) {
        size = Size(width: width, height: height)
        pendingKeys.append(.resize)
    }

    package func draw(_ buffer: Buffer) {
        lastBuffer = buffer
        drawCount += 1
        frames = Array((frames + [buffer]).suffix(8))
    }

    /// The last frames drawn (up to 8), oldest first.
    package private(set) var frames: [Buffer] = []

    /// What was copied to the clipboard, oldest first.
    package private(set) var clipboard: [String] = []

    package func copyToClipboard(_ text: String) -> Bool {
        clipboard.append(text)
        return true
    }

    /// How many frames had been drawn when a read that may wait (`timeout` > 0) last began.
    package private(set) var drawsBeforeLastWait: Int?

    package func nextKey(timeout: Duration) -> Key? {
        if timeout > .zero { drawsBeforeLastWait = drawCount }
        return pendingKeys.isEmpty ? nil : pendingKeys.removeFirst()
    }

    /// The last drawn rows as text (empty before the first draw).
    package var lines: [String] { lastBuffer?.lines ?? [] }

    /// The last drawn screen, trailing spaces removed, rows joined by newlines.
    package var text: String { lastBuffer?.text ?? "" }
}
