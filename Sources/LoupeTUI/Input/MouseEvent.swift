/// A mouse event as a ``Terminal`` reports it, in buffer cells.
public struct MouseEvent: Hashable, Sendable {
    /// What happened.
    public enum Kind: Hashable, Sendable {
        /// The left button went down (clicks; two quick ones on one row are a double click).
        case press
        /// The wheel turned away from the user.
        case wheelUp
        /// The wheel turned towards the user.
        case wheelDown
    }

    public var kind: Kind
    public var x: Int
    public var y: Int

    public init(_ kind: Kind, x: Int, y: Int) {
        self.kind = kind
        self.x = x
        self.y = y
    }
}
