import Foundation
import LoupeTrace

/// The detail view's model: which exchange, what has loaded, and how far it is scrolled.
package struct DetailState: Hashable, Sendable {
    /// The exchange shown.
    package var id: UUID
    /// The full exchange, once loaded.
    package var exchange: TraceExchange?
    /// Why it could not be loaded, if it could not.
    package var problem: String?
    /// The document lines, before wrapping.
    package var document: [StyledLine]
    /// The document wrapped to ``wrapWidth`` columns; what scrolling counts.
    package var wrapped: [StyledLine]
    /// The width ``wrapped`` was made for.
    package var wrapWidth: Int
    /// The first wrapped line shown.
    package var scroll: Int

    /// A detail view for `id` that is still loading.
    package init(id: UUID) {
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
