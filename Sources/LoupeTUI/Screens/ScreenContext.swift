import Foundation
import LoupeApproval
import LoupeProtobuf
import LoupeQuery
import LoupeTrace

/// What a screen's update may read and ask for: the store (read-only), the shared session (filter, order,
/// marks, follow), and requests the TUI carries out afterwards: a message, a screen to push, effects.
///
/// Reads happen here, synchronously: a keyset page of a million-row store is one indexed query, far cheaper
/// than a frame. Everything that writes, waits or touches the terminal is a ``TUIEffect``.
package struct ScreenContext {
    /// The store being inspected (never written through).
    package let store: any TraceStore
    /// The filter, order, marks and follow mode every screen shares.
    package var session: TUISession
    /// The area the screen draws into.
    package var area: Rect
    /// The clock column's calendar.
    package let calendar: Calendar
    /// The key table, for hints in messages.
    package let keymap: Keymap
    /// A message for the status line.
    package var status: StatusMessage?
    /// A screen to put on top of the stack.
    package var pushed: (any Screen)?
    /// Whether the screen asks to be taken off the stack.
    package var popRequested = false
    /// Work for the app.
    package var effects: [TUIEffect] = []
    /// The last failed store read, shown until a read succeeds.
    package var readFailure: String?
    /// Whether the screen asks to go back to the exchanges list (after changing the filter, say).
    package var popToRootRequested = false
    /// The wall clock's time now.
    package var now = Date(timeIntervalSince1970: 0)
    /// The linked apps' rules (`loupe tui --listen`), for the rules screen.
    package var rules: (any RulesControl)?
    /// The streams open now in this process's recorder, oldest first (not in the store until they end).
    package var openStreams: [OpenStream] = []
    /// The OpenAPI contract's checks (`loupe tui --openapi`), or nil.
    package var contract: ContractChecks?
    /// Names gRPC messages' fields (`--descriptor-set`), so the Messages tab shows them as JSON.
    package var messageTypes: ProtobufDescriptorSet?
    /// Agents' requests waiting beside the store, for screen 6 (read only: the app writes decisions).
    package var agents: AgentQueue?

    package init(store: any TraceStore, session: TUISession, area: Rect, calendar: Calendar, keymap: Keymap) {
        self.store = store
        self.session = session
        self.area = area
        self.calendar = calendar
        self.keymap = keymap
    }

    /// Runs a store read, turning a failure into an error message.
    package mutating func read<T>(_ what: String, _ body: (any TraceStore) throws -> T) -> T? {
        do {
            return try body(store)
        } catch {
            readFailure = "store: could not read \(what): \(error)"
            return nil
        }
    }
}

/// What drawing needs besides the screen itself.
package struct RenderContext {
    package var session: TUISession
    package var calendar: Calendar
    /// The active search text, highlighted where it occurs.
    package var search: String?
    /// The wall clock's time of the last update.
    package var now = Date(timeIntervalSince1970: 0)
    /// The link apps are given (`LOUPE_LINK=…`), when this TUI listens: empty screens say it.
    package var link: String?
    /// The key table, for the keys hints name.
    package var keymap = Keymap.standard
    /// The OpenAPI contract's checks (`loupe tui --openapi`): the list marks the rows that drift.
    package var contract: ContractChecks?
}
