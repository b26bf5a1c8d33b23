/// A screen in memory, for tests and examples: a size you can change, a queue of keys, and the last buffer drawn.
///
/// ```swift
/// let screen = InMemoryScreen(width: 80, height: 24)
/// screen.press("j", .enter)
/// _ = await app.turn(on: screen, waitingUpTo: .zero)
/// #expect(screen.text.contains("Response headers"))
/// ```
/// It never waits: ``nextKey(timeout:)`` returns the next queued key or `nil` at once.
public final class InMemoryScreen: Screen {
    /// The size, as a terminal would report it.
    public private(set) var size: Size
    /// Keys not yet read, first first.
    public private(set) var pendingKeys: [Key] = []
    /// The last buffer drawn.
    public private(set) var lastBuffer: Buffer?
    /// How many times ``draw(_:)`` was called.
    public private(set) var drawCount = 0

    /// A screen of `width`×`height` cells.
    public init(width: Int = 80, height: Int = 24) {
        self.size = Size(width: width, height: height)
    }

    /// Queues keys to be read in order.
    public func press(_ keys: Key...) {
        pendingKeys += keys
    }

    /// Queues one `.char` key per character of `text`.
    public func type(_ text: String) {
        pendingKeys += text.map(Key.char)
    }

    /// Changes the size and queues `.resize`, as a terminal does.
    public func resize(width: Int, height: Int) {
        size = Size(width: width, height: height)
        pendingKeys.append(.resize)
    }

    public func draw(_ buffer: Buffer) {
        lastBuffer = buffer
        drawCount += 1
    }

    public func nextKey(timeout: Duration) -> Key? {
        pendingKeys.isEmpty ? nil : pendingKeys.removeFirst()
    }

    /// The last drawn rows as text (empty before the first draw).
    public var lines: [String] { lastBuffer?.lines ?? [] }

    /// The last drawn screen, trailing spaces removed, rows joined by newlines.
    public var text: String { lastBuffer?.text ?? "" }
}
