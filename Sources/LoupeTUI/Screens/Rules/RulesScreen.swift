import Foundation
import Loupe
import LoupeRules
import LoupeTrace

/// `5`: the rules of the linked apps with their hit counts, and the queue of requests their breakpoints hold.
///
/// Held requests come first (they are waiting for someone), oldest first, with how long they have waited; then
/// each app's rules in its order. On a held row: `e` edits it (the document `e` edits a replay in), `c`
/// continues, `a` aborts, `A` continues all. On a rule: `t` enables or disables it, `e` edits it as TOML in
/// `$EDITOR`, `d` deletes it. Everything goes to the app over the link; the screen shows what the app reports
/// back, so it never shows a change the app did not make.
package struct RulesScreen: Screen {
    /// One selectable row.
    package enum Row: Hashable, Sendable {
        case held(app: String, HeldRequest)
        case rule(app: String, RulesAppState.Entry)
    }

    package private(set) var apps: [RulesAppState] = []
    package private(set) var rows: [Row] = []
    /// Which rows are on screen and which is selected.
    private var viewport: ListViewport
    private let linked: Bool
    private var seenVersion = -1
    /// The change last sent and not yet seen in what the apps report back: its status line (`deleting rule 'x'…`)
    /// turns into what happened (`deleted rule 'x'`) once the app's state shows it, never before.
    private var pending: PendingChange?

    private struct PendingChange {
        var app: String?
        var change: RulesChange
        /// The line that replaces `deleting …` once the app shows the change.
        var done: String
    }

    package init(context: inout ScreenContext) {
        viewport = ListViewport(height: context.area.height - 1, selects: true)
        linked = context.rules != nil
        reload(context)
    }

    package var keyContext: KeyContext { .rules }
    package var title: String { "rules" }
    package var position: String {
        rows.isEmpty ? "" : "\(selected + 1) / \(rows.count)"
    }

    /// The selected row's index.
    package var selected: Int { viewport.selected }

    /// The selected row.
    package var selectedRow: Row? { rows.indices.contains(selected) ? rows[selected] : nil }

    private mutating func reload(_ context: ScreenContext) {
        // The list area is the screen's less its header row.
        guard let control = context.rules else { return viewport.update(count: rows.count, height: context.area.height - 1) }
        seenVersion = control.version
        let previous = selectedRow
        apps = control.apps()
        rows = apps.flatMap { app in app.held.sorted { $0.since < $1.since }.map { Row.held(app: app.id, $0) } }
            + apps.flatMap { app in app.entries.map { Row.rule(app: app.id, $0) } }
        // The selection follows its row (by held id or rule name) as rows come and go.
        let index = previous.flatMap { previous in rows.firstIndex { Self.sameRow($0, previous) } }
        viewport.update(count: rows.count, height: context.area.height - 1, selecting: index)
    }

    private static func sameRow(_ a: Row, _ b: Row) -> Bool {
        switch (a, b) {
        case (.held(let x, let h), .held(let y, let k)): x == y && h.id == k.id
        case (.rule(let x, let r), .rule(let y, let s)): x == y && r.rule.name == s.rule.name
        default: false
        }
    }

    package mutating func refresh(_ reason: RefreshReason, context: inout ScreenContext) {
        reload(context)
        settle(&context)
    }

    /// Replaces the pending change's `…` line with what the app did, once its reported state shows it.
    private mutating func settle(_ context: inout ScreenContext) {
        guard let pending else { return }
        let reported = pending.app.flatMap { app in apps.first { $0.id == app } }
        let applied: Bool
        switch pending.change {
        case .remove(let name):
            applied = reported.map { !$0.entries.contains { $0.rule.name == name } } ?? false
        case .setEnabled(let name, let enabled):
            applied = reported?.entries.first { $0.rule.name == name }?.rule.limits.enabled == enabled
        case .decide(let id, _):
            applied = reported.map { !$0.held.contains { $0.id == id } } ?? false
        case .continueAll:
            applied = apps.allSatisfy { $0.held.isEmpty }
        case .put:
            applied = false
        }
        guard applied else { return }
        context.status = StatusMessage(pending.done)
        self.pending = nil
    }

    package mutating func perform(_ command: Command, argument: String?, context: inout ScreenContext) -> Bool {
        if viewport.perform(command) { return true }
        switch command {
        case .toggleRule:
            guard case .rule(let app, let entry)? = selectedRow else { return nothing(command, &context) }
            let enabled = !entry.rule.limits.enabled
            send(.setEnabled(entry.rule.name, enabled), to: app, &context,
                 doing: "\(enabled ? "enabling" : "disabling") rule '\(entry.rule.name)'",
                 done: "\(enabled ? "enabled" : "disabled") rule '\(entry.rule.name)'")
        case .deleteRule:
            guard case .rule(let app, let entry)? = selectedRow else { return nothing(command, &context) }
            send(.remove(entry.rule.name), to: app, &context, doing: "deleting rule '\(entry.rule.name)'",
                 done: "deleted rule '\(entry.rule.name)'")
        case .editRule, .open:
            switch selectedRow {
            case .rule(let app, let entry)?: context.effects.append(.editRule(app: app, entry.rule))
            case .held(let app, let held)?: context.effects.append(.editHeld(app: app, held))
            case nil: return nothing(command, &context)
            }
        case .continueHeld, .abortHeld:
            guard case .held(let app, let held)? = selectedRow else { return nothing(command, &context) }
            let abort = command == .abortHeld
            send(.decide(held.id, abort ? .abort : .resume), to: app, &context,
                 doing: "\(abort ? "aborting" : "continuing") \(held.method) \(held.operation)",
                 done: "\(abort ? "aborted" : "continued") \(held.method) \(held.operation)")
        case .continueAll:
            let count = apps.reduce(0) { $0 + $1.held.count }
            send(.continueAll, to: nil, &context, doing: "continuing \(Quantity.count(count, "held request"))",
                 done: "continued \(Quantity.count(count, "held request"))")
        default:
            return false
        }
        return true
    }

    private func nothing(_ command: Command, _ context: inout ScreenContext) -> Bool {
        let what: String = switch command {
        case .toggleRule, .deleteRule, .editRule: "select a rule first"
        default: "select a held request first"
        }
        context.status = .error("\(command.name): \(linked ? what : Self.unlinked)")
        return true
    }

    private mutating func send(_ change: RulesChange, to app: String?, _ context: inout ScreenContext,
                               doing: String, done: String) {
        guard let control = context.rules, control.send(change, to: app) else {
            context.status = .error(linked ? "the app is no longer linked" : Self.unlinked)
            return
        }
        context.status = StatusMessage(doing + "…")
        pending = PendingChange(app: app, change: change, done: done)
    }

    static let unlinked = "rules act on linked apps: run loupe tui --listen and link an app"

    package mutating func search(_ text: String, forward: Bool, fromCurrent: Bool, context: inout ScreenContext) -> Bool {
        let texts = rows.map { Self.text(of: $0, now: context.now) }
        guard let hit = viewport.search(text, in: texts, forward: forward, fromCurrent: fromCurrent) else { return false }
        context.status = RowSearch.message(hit, text)
        return true
    }

    /// Whether the screen must read again (an app reported).
    package func isStale(_ control: (any RulesControl)?) -> Bool {
        control.map { $0.version != seenVersion } ?? false
    }

    // MARK: Drawing

    package func render(in area: Rect, into buffer: inout Buffer, context: RenderContext) {
        guard area.width > 2, area.height > 1 else { return }
        guard linked else {
            _ = buffer.write(Self.unlinked, x: area.x + 1, y: area.y + 1, maxWidth: area.width - 2, style: .dim)
            return
        }
        let held = apps.reduce(0) { $0 + $1.held.count }
        let rules = apps.reduce(0) { $0 + $1.entries.count }
        let maxHold = apps.first.map { " · longest hold \(Quantity.duration($0.maxHold))" } ?? ""
        let header = apps.isEmpty ? "No linked app takes rules yet (an app opts in with a link or LOUPE_RULES)"
            : "\(held) held · \(rules) rule\(rules == 1 ? "" : "s") · \(apps.count) app\(apps.count == 1 ? "" : "s")\(maxHold)"
        _ = buffer.write(header, x: area.x, y: area.y, maxWidth: area.width, style: .heading)
        if apps.isEmpty, let link = context.link, area.height > 4 {
            // Wrapped, not cut: at 80 columns the link is two lines wide and is copied from here.
            let lines = [StyledLine("Give an app this line in its environment, or --link to loupe demo and loupe send:",
                                    style: .dim),
                         StyledLine(link, style: .label)].flatMap { $0.wrapped(to: area.width - 2, hangingIndent: 0) }
            for (offset, line) in lines.prefix(area.height - 2).enumerated() {
                var x = area.x + 1
                for span in line.spans {
                    x = buffer.write(span.text, x: x, y: area.y + 2 + offset, maxWidth: area.maxX - 1 - x, style: span.style)
                }
            }
        }
        for (offset, row) in rows.dropFirst(viewport.offset).prefix(area.height - 1).enumerated() {
            let y = area.y + 1 + offset
            let index = viewport.offset + offset
            let style: Style = index == selected ? .selection : Self.style(of: row)
            if index == selected { buffer.fill(Rect(x: area.x, y: y, width: area.width, height: 1), style: .selection) }
            _ = buffer.write(Self.text(of: row, now: context.now, app: appName(row)), x: area.x, y: y, maxWidth: area.width, style: style)
        }
    }

    private func appName(_ row: Row) -> String? {
        guard apps.count > 1 else { return nil }
        let id: String = switch row { case .held(let app, _), .rule(let app, _): app }
        return apps.first { $0.id == id }?.name
    }

    private static func style(of row: Row) -> Style {
        switch row {
        case .held: .statusClientError
        case .rule(_, let entry): entry.rule.limits.enabled ? .normal : .dim
        }
    }

    /// A row's text: `⏸ held 3.2 s  POST http://…/orders  createOrder  request  by hold orders`, or
    /// `on   getUser down   ~op getUser   fault status 503   12 hits   viewer …`.
    static func text(of row: Row, now: Date, app: String? = nil) -> String {
        let suffix = app.map { "  [\($0)]" } ?? ""
        switch row {
        case .held(_, let held):
            let waited = Quantity.duration(max(0, now.timeIntervalSince(held.since)))
            let what = held.phase == .response ? "response \(held.status.map(String.init) ?? "")" : "request"
            return TerminalText.line("⏸ held \(DisplayWidth.pad(waited, to: 7)) \(held.method) \(held.url)  \(held.operation)  \(what)  by \(held.rule)") + suffix
        case .rule(_, let entry):
            let rule = entry.rule
            let state = rule.limits.enabled ? "on " : "off"
            var limits: [String] = []
            if rule.limits.probability < 1 { limits.append("\(Int((rule.limits.probability * 100).rounded())) %") }
            if let times = rule.limits.times { limits.append("\(entry.hits)/\(times)") }
            let hits = "\(Quantity.count(entry.hits)) hit\(entry.hits == 1 ? "" : "s")"
            let columns = [
                "  " + state, DisplayWidth.pad(TerminalText.line(rule.name), to: 16),
                DisplayWidth.pad(TerminalText.line(rule.match), to: 18),
                DisplayWidth.pad(describe(rule.action), to: 20),
                DisplayWidth.pad(hits + (limits.isEmpty ? "" : " " + limits.joined(separator: " ")), to: 8),
                entry.origin,
            ]
            return columns.joined(separator: " ") + suffix
        }
    }

    /// An action in a few words: `fault status 503`, `mock 200 (#12)`, `breakpoint request+response`.
    static func describe(_ action: RuleAction) -> String {
        switch action {
        case .mock(let mock): "mock \(mock.status)" + (mock.recordedFrom.map { " (#\($0))" } ?? "")
        case .fault(let fault): "fault \(fault)"
        case .rewrite(let rewrite):
            "rewrite" + (rewrite.baseURL.map { " → \($0.absoluteString)" } ?? "")
                + (rewrite.setHeaders.isEmpty && rewrite.removeHeaders.isEmpty ? "" : " headers")
        case .breakpoint(let breakpoint):
            "breakpoint " + [breakpoint.request ? "request" : nil, breakpoint.response ? "response" : nil]
                .compactMap { $0 }.joined(separator: "+")
        case .breaker(let key, let override): "breaker \(key) \(override.rawValue)"
        }
    }
}
