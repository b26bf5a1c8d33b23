import Foundation
import LoupeTrace

/// The detail view's model: which exchange, what has loaded, and how far it is scrolled.
public struct DetailState: Hashable, Sendable {
    /// The exchange shown.
    public var id: UUID
    /// The full exchange, once loaded.
    public var exchange: TraceExchange?
    /// Why it could not be loaded, if it could not.
    public var problem: String?
    /// The document lines, before wrapping.
    public var document: [StyledLine]
    /// The document wrapped to ``wrapWidth`` columns; what scrolling counts.
    public var wrapped: [StyledLine]
    /// The width ``wrapped`` was made for.
    public var wrapWidth: Int
    /// The first wrapped line shown.
    public var scroll: Int

    /// A detail view for `id` that is still loading.
    public init(id: UUID) {
        self.id = id
        self.exchange = nil
        self.problem = nil
        self.document = [StyledLine("Loading…", style: .dim)]
        self.wrapped = document
        self.wrapWidth = 0
        self.scroll = 0
    }

    /// Rewraps the document for `width` columns when that width is new.
    mutating func wrap(to width: Int) {
        guard width != wrapWidth else { return }
        wrapWidth = width
        wrapped = document.flatMap { $0.wrapped(to: width) }
    }

    /// Replaces the document, keeping the scroll position.
    mutating func setDocument(_ lines: [StyledLine]) {
        document = lines
        wrapWidth = -1
    }
}
