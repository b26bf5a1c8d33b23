/// Where the TUI draws and reads keys: a real terminal (curses, in the `loupe` tool) or
/// `InMemoryTerminal` in tests. The only seam between the pure TUI and a terminal. (A `Screen` is something else:
/// one view on the TUI's stack, drawn into the buffer a terminal shows.)
public protocol Terminal: AnyObject {
    /// The current size in cells.
    var size: Size { get }
    /// Shows `buffer` (which has the terminal's size, unless the terminal was resized since it was rendered).
    func draw(_ buffer: Buffer)
    /// The next key, click or wheel turn, waiting at most `timeout`; `.resize` when the size changed; `nil`
    /// when nothing came.
    func nextKey(timeout: Duration) -> Key?
    /// Puts `text` on the terminal's clipboard (OSC 52); `false` when the terminal is not known to take it.
    func copyToClipboard(_ text: String) -> Bool
    /// Gives the terminal to `body` (an editor) and takes it back afterwards, redrawing everything.
    func suspend(while body: () -> Void)
    /// From now on, ``nextKey(timeout:)`` also returns (with `nil`) when `descriptor` becomes readable: how a
    /// ``StoreWakeup`` ends the wait for a key. A terminal that cannot watch ignores it and the TUI polls.
    func watch(_ descriptor: Int32)
}

extension Terminal {
    public func copyToClipboard(_ text: String) -> Bool { false }
    public func suspend(while body: () -> Void) { body() }
    public func watch(_ descriptor: Int32) {}
}
