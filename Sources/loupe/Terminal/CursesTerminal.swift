import CNcurses
import Dispatch
import Foundation
import LoupeTUI
import Synchronization

/// The real terminal, through ncursesw: the only code in the project that imports curses (htop's `CRT`).
///
/// It turns ``Style`` roles into colours (or, under `NO_COLOR` or on a monochrome terminal, into bold, dim and
/// reverse), draws ``Buffer``s cell by cell, and reads keys with a timeout. Create one, `defer { shutdown() }`,
/// and run the TUI on it: the terminal is restored on return, on a thrown error, on SIGINT, SIGTERM, SIGHUP
/// and SIGQUIT (which exit with 128 + the signal number), and on a crash (``TerminalRescue``).
final class CursesTerminal: Terminal {
    /// Why the terminal could not be used.
    enum Failure: Error, CustomStringConvertible {
        case notATerminal
        case cannotStart(term: String)

        var description: String {
            switch self {
            case .notATerminal: "the TUI needs a terminal: stdin and stdout must be a TTY"
            case .cannotStart(let term): "cannot start the terminal UI on TERM=\(term.isEmpty ? "(unset)" : term)"
            }
        }
    }

    /// Whether curses owns the terminal. Guarded by a lock because the signal handlers run on a Dispatch queue
    /// while the TUI draws from its own task: draws and `endwin` never overlap, and `endwin` runs once.
    private static let active = Mutex(false)

    private var attributes: [Style: (attrs: attr_t, pair: Int16)] = [:]
    private var signalSources: [any DispatchSourceSignal] = []
    /// What curses' own copy of the screen holds: a frame puts only the cells that differ from it (a move changes
    /// two rows, and putting all 4,800 cells of a 120x40 frame cost more than the rest of the frame).
    private var drawn: Buffer?
    /// The style last set, so a run of cells in one style sets it once.
    private var currentStyle: Style?
    /// Reused for each cell's code points.
    private var codepoints: [UInt32] = []

    /// Takes over the terminal: locale from the environment, cbreak, no echo, keypad, hidden cursor, colours,
    /// and (with `mouse`) clicks and the wheel.
    init(mouse: Bool = true) throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw Failure.notATerminal }
        setlocale(LC_ALL, "")
        TerminalRescue.arm()
        try Self.active.withLock { active in
            guard loupe_newterm() != nil else {
                TerminalRescue.disarm()
                throw Failure.cannotStart(term: ProcessInfo.processInfo.environment["TERM"] ?? "")
            }
            active = true
        }
        loupe_configure_input()
        if mouse { loupe_enable_mouse() }
        loupe_bracketed_paste(1)
        let noColor = !(ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
        attributes = noColor || !has_colors() ? Self.monochrome() : Self.coloured()
        installSignalHandlers()
    }

    deinit {
        shutdown()
    }

    var size: Size {
        Size(width: Int(loupe_cols()), height: Int(loupe_lines()))
    }

    func draw(_ buffer: Buffer) {
        Self.active.withLock { active in
            guard active else { return }
            let rows = min(buffer.height, Int(loupe_lines()))
            let columns = min(buffer.width, Int(loupe_cols()))
            // Another size (a resize) starts from a blank screen; otherwise only what changed is put.
            let previous = drawn.flatMap { $0.width == buffer.width && $0.height == buffer.height ? $0 : nil }
            if previous == nil { loupe_erase() }
            currentStyle = nil
            for y in 0..<rows {
                var x = 0
                while x < columns {
                    let cell = buffer[x, y]
                    let wide = x + 1 < buffer.width && buffer[x + 1, y].isContinuation
                    let changed = previous.map { previous in
                        previous[x, y] != cell || (wide && !previous[x + 1, y].isContinuation)
                    } ?? true
                    if changed, !cell.isContinuation { put(cell, x: x, y: y, wide: wide && x + 1 < columns) }
                    x += wide ? 2 : 1
                }
            }
            loupe_refresh()
            drawn = buffer
        }
    }

    /// A descriptor whose readability also ends a key wait (``Terminal/watch(_:)``).
    private var watched: Int32?

    func watch(_ descriptor: Int32) {
        watched = descriptor
    }

    func nextKey(timeout: Duration) -> Key? {
        if !interruptDelivered, wasInterrupted {
            interruptDelivered = true
            return .ctrl("c")
        }
        if pasting { return readPaste() }
        let parts = timeout.components
        let milliseconds = max(0, Int(parts.seconds) * 1000 + Int(parts.attoseconds / 1_000_000_000_000_000))
        var code: UInt32 = 0
        let wait = Int32(min(milliseconds, 60_000))
        let result: Int32
        if let watched {
            result = loupe_read_watching(wait, watched, &code)
        } else {
            result = loupe_read(wait, &code)
        }
        if result == loupe_key_code_yes() {
            if Int32(bitPattern: code) == loupe_key_mouse() { return Self.mouseKey() }
            if Int32(bitPattern: code) == loupe_key_paste_start() {
                pasting = true
                return readPaste()
            }
            if Int32(bitPattern: code) == loupe_key_paste_end() { return nil }
            return Self.functionKey(Int32(bitPattern: code))
        }
        guard result == OK else { return nil }
        return Self.characterKey(code)
    }

    /// Most characters one ``Key/paste(_:)`` carries; a longer paste arrives as several (still text, never keys).
    static let pasteChunk = 1 << 16
    /// A paste whose end marker does not come within this long of its last byte is over (a terminal that lost it).
    static let pasteSilence: Int32 = 200
    /// Inside a bracketed paste, between reads (a paste longer than ``pasteChunk`` continues on the next read).
    private var pasting = false

    /// Bytes read in the last chunk that may begin the end marker or a character: kept for the next chunk.
    private var pasteCarry: [UInt8] = []
    /// Most bytes handed back to curses after a paste's end (its queue holds little more).
    static let unreadLimit = 128
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    /// Reads pasted text up to its end marker: every byte is text, whatever it is (an Esc, a `y`, an Enter), read
    /// from the terminal in bulk (a chunk a call); what follows the marker goes back to curses as keys.
    private func readPaste() -> Key {
        var bytes = pasteCarry
        pasteCarry = []
        var buffer = [UInt8](repeating: 0, count: 1 << 14)
        while bytes.count < Self.pasteChunk {
            if let end = Self.endMarker(in: bytes) {
                let after = Array(bytes[end.upperBound...].prefix(Self.unreadLimit))
                after.withUnsafeBufferPointer { loupe_unread_bytes($0.baseAddress, Int32($0.count)) }
                bytes.removeSubrange(end.lowerBound...)
                pasting = false
                return .paste(String(decoding: bytes, as: UTF8.self))
            }
            let wanted = min(buffer.count, Self.pasteChunk - bytes.count + Self.pasteEnd.count)
            let count = buffer.withUnsafeMutableBufferPointer { loupe_read_bytes(Self.pasteSilence, $0.baseAddress, Int32(wanted)) }
            guard count > 0 else {
                pasting = false
                break
            }
            bytes.append(contentsOf: buffer[0..<Int(count)])
        }
        if pasting {
            let keep = Self.unfinishedTail(of: bytes)
            pasteCarry = Array(bytes[keep...])
            bytes.removeSubrange(keep...)
        }
        return .paste(String(decoding: bytes, as: UTF8.self))
    }

    /// Where the paste's end marker stands in `bytes`, if it does.
    static func endMarker(in bytes: [UInt8]) -> Range<Int>? {
        guard bytes.count >= pasteEnd.count else { return nil }
        var index = bytes.startIndex
        while let escape = bytes[index...].firstIndex(of: 0x1B) {
            let end = escape + pasteEnd.count
            if end <= bytes.count, bytes[escape..<end].elementsEqual(pasteEnd) { return escape..<end }
            index = escape + 1
        }
        return nil
    }

    /// Where a chunk's unfinished end begins: a start of the end marker, or a character whose bytes have not all
    /// arrived; `bytes.count` when it ends cleanly.
    static func unfinishedTail(of bytes: [UInt8]) -> Int {
        var keep = bytes.count
        for start in max(0, bytes.count - pasteEnd.count + 1)..<bytes.count where bytes[start] == 0x1B {
            if pasteEnd.starts(with: bytes[start...]) { keep = min(keep, start); break }
        }
        for start in stride(from: bytes.count - 1, through: max(0, bytes.count - 4), by: -1) {
            let byte = bytes[start]
            guard byte & 0xC0 == 0x80 else {
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if bytes.count - start < length { keep = min(keep, start) }
                break
            }
        }
        return keep
    }

    func copyToClipboard(_ text: String) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        guard OSC52.isLikelySupported(environment: environment, terminfoHasMs: loupe_terminfo_has_ms() != 0),
              let sequence = OSC52.sequence(for: text, environment: environment) else { return false }
        Self.active.withLock { active in
            if active { loupe_write_raw(sequence) }
        }
        return true
    }

    /// Whether a child program (the editor) has the terminal: Ctrl-C and Ctrl-\\ are then the child's, not ours.
    private static let suspended = Mutex(false)
    /// Ctrl-Cs received while the TUI ran; the first is handed out once as a ``Key`` by ``nextKey(timeout:)``.
    private static let interrupts = Mutex(0)
    private var interruptDelivered = false
    /// Whether Ctrl-C was pressed (the command exits 130 after the TUI quits).
    var wasInterrupted: Bool { Self.interrupts.withLock { $0 } > 0 }

    /// Gives the terminal to a child (the editor) the way a shell would: curses leaves (its modes saved), paste
    /// and mouse reports go off, the child runs in our process group (the terminal's foreground group, see
    /// `ExternalEditor`) with the shell's modes, and afterwards the modes it may have left (raw, no echo) are put
    /// back before curses restores its own and redraws everything.
    func suspend(while body: () -> Void) {
        var shellModes = termios()
        let saved = Self.active.withLock { active -> Bool in
            guard active else { return false }
            loupe_bracketed_paste(0)
            loupe_suspend()
            return tcgetattr(STDIN_FILENO, &shellModes) == 0
        }
        Self.suspended.withLock { $0 = true }
        body()
        Self.suspended.withLock { $0 = false }
        Self.active.withLock { active in
            guard active else { return }
            if saved { _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &shellModes) }
            loupe_resume()
            loupe_bracketed_paste(1)
            drawn = nil
        }
        // Keys typed into the editor after it quit, or a terminal's answer, are not commands for the TUI.
        pasting = false
    }

    private static func mouseKey() -> Key? {
        var x: Int32 = 0, y: Int32 = 0
        switch loupe_get_mouse(&x, &y) {
        case 1: return .mouse(MouseEvent(.press, x: Int(x), y: Int(y)))
        case 2: return .mouse(MouseEvent(.wheelUp, x: Int(x), y: Int(y)))
        case 3: return .mouse(MouseEvent(.wheelDown, x: Int(x), y: Int(y)))
        default: return nil
        }
    }

    /// Gives the terminal back (`endwin`); safe to call more than once and from `defer`.
    func shutdown() {
        for source in signalSources { source.cancel() }
        signalSources = []
        Self.restoreTerminal()
    }

    private static func restoreTerminal() {
        active.withLock { active in
            guard active else { return }
            loupe_bracketed_paste(0)
            endwin()
            active = false
            TerminalRescue.disarm()
        }
    }

    /// The signals that end the TUI politely (restore, then exit with 128 + the signal number): Ctrl-C,
    /// `kill`, a closed terminal window (SIGHUP) and Ctrl-\ (SIGQUIT, which would otherwise dump core).
    static let terminatingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private func installSignalHandlers() {
        for number in Self.terminatingSignals {
            let status = 128 + number
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if number == SIGINT || number == SIGQUIT, CursesTerminal.suspended.withLock({ $0 }) { return }
                // The first Ctrl-C is a key (bound to quit): the TUI then waits for the replays in flight,
                // so each one that went out is recorded (issue 43.3). A second one ends it at once.
                if number == SIGINT, CursesTerminal.interrupts.withLock({ count in
                    count += 1
                    return count == 1
                }) { return }
                CursesTerminal.restoreTerminal()
                exit(status)
            }
            source.resume()
            signalSources.append(source)
        }
    }

    private func put(_ cell: Cell, x: Int, y: Int, wide: Bool) {
        if cell.style != currentStyle {
            let style = attributes[cell.style] ?? (loupe_a_normal(), 0)
            loupe_set_style(style.attrs, style.pair)
            currentStyle = cell.style
        }
        // A grapheme is drawn up to its first zero-width joiner: curses would give each joined emoji its own cells.
        codepoints.removeAll(keepingCapacity: true)
        for scalar in cell.character.unicodeScalars {
            guard scalar.value != 0x200D, codepoints.count < 8 else { break }
            codepoints.append(scalar.value)
        }
        if codepoints.isEmpty { codepoints.append(0x20) }
        _ = loupe_put(Int32(y), Int32(x), codepoints, Int32(codepoints.count))
        if wide, Int(loupe_cursor_x()) == x + 1 {
            // curses thought the grapheme narrower than the buffer did: fill the second cell so nothing stale shows.
            _ = loupe_put(Int32(y), Int32(x + 1), [0x20], 1)
        }
    }

    private static func characterKey(_ code: UInt32) -> Key? {
        switch code {
        case 10, 13: return .enter
        case 27: return .escape
        case 9: return .tab
        case 8, 127: return .backspace
        case 1...26: return .ctrl(Character(Unicode.Scalar(code + 96)!))
        default: return Unicode.Scalar(code).map { .char(Character($0)) }
        }
    }

    private static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case loupe_key_up(): .up
        case loupe_key_down(): .down
        case loupe_key_left(): .left
        case loupe_key_right(): .right
        case loupe_key_ppage(): .pageUp
        case loupe_key_npage(): .pageDown
        case loupe_key_home(): .home
        case loupe_key_end(): .end
        case loupe_key_enter(): .enter
        case loupe_key_backspace(): .backspace
        case loupe_key_dc(): .delete
        case loupe_key_btab(): .backTab
        case loupe_key_resize(): .resize
        default: nil
        }
    }

    /// Roles as attributes only, for `NO_COLOR` and monochrome terminals.
    private static func monochrome() -> [Style: (attrs: attr_t, pair: Int16)] {
        let bold = loupe_a_bold(), reverse = loupe_a_reverse(), dim = loupe_a_dim(), underline = loupe_a_underline()
        let table: [Style: attr_t] = [
            .dim: dim, .header: bold | underline, .selection: reverse, .statusClientError: bold,
            .statusServerError: bold, .error: bold, .footerKey: bold, .footerText: reverse, .title: reverse | bold,
            .replay: bold, .heading: bold, .mark: bold, .searchHit: reverse | underline, .activeTab: reverse | bold,
            .tab: dim, .cursor: reverse, .jsonLiteral: bold,
        ]
        return Dictionary(uniqueKeysWithValues: Style.allCases.map { ($0, (attrs: table[$0] ?? loupe_a_normal(), pair: Int16(0))) })
    }

    /// Roles as colour pairs on the terminal's default background (htop's default scheme, roughly).
    private static func coloured() -> [Style: (attrs: attr_t, pair: Int16)] {
        start_color()
        let background: Int16 = use_default_colors() == OK ? -1 : Int16(COLOR_BLACK)
        let foreground: Int16 = background == -1 ? -1 : Int16(COLOR_WHITE)
        let bold = loupe_a_bold()
        let scheme: [(Style, Int32?, Int32?, attr_t)] = [
            (.normal, nil, nil, 0), (.dim, nil, nil, loupe_a_dim()),
            (.header, COLOR_BLACK, COLOR_GREEN, 0), (.selection, COLOR_BLACK, COLOR_CYAN, 0),
            (.statusSuccess, COLOR_GREEN, nil, 0), (.statusRedirect, COLOR_CYAN, nil, 0),
            (.statusClientError, COLOR_YELLOW, nil, 0), (.statusServerError, COLOR_RED, nil, bold),
            (.error, COLOR_RED, nil, 0), (.bar, COLOR_BLUE, nil, bold),
            (.footerKey, nil, nil, bold), (.footerText, COLOR_BLACK, COLOR_CYAN, 0),
            (.title, COLOR_WHITE, COLOR_BLUE, bold), (.replay, COLOR_MAGENTA, nil, bold),
            (.heading, COLOR_YELLOW, nil, bold), (.label, COLOR_CYAN, nil, 0),
            (.jsonString, COLOR_GREEN, nil, 0), (.jsonNumber, COLOR_MAGENTA, nil, 0), (.jsonLiteral, COLOR_YELLOW, nil, 0),
            (.timingSend, COLOR_CYAN, nil, 0), (.timingWait, COLOR_YELLOW, nil, 0), (.timingReceive, COLOR_GREEN, nil, 0),
            (.mark, COLOR_MAGENTA, nil, bold), (.searchHit, COLOR_BLACK, COLOR_YELLOW, 0), (.tab, nil, nil, loupe_a_dim()),
            (.activeTab, COLOR_BLACK, COLOR_GREEN, bold), (.prompt, nil, nil, 0), (.cursor, COLOR_BLACK, COLOR_WHITE, 0),
        ]
        var table: [Style: (attrs: attr_t, pair: Int16)] = [:]
        for (index, entry) in scheme.enumerated() {
            let (style, fg, bg, attrs) = entry
            guard fg != nil || bg != nil else {
                table[style] = (attrs, 0)
                continue
            }
            let pair = Int16(index + 1)
            init_pair(pair, fg.map(Int16.init) ?? foreground, bg.map(Int16.init) ?? background)
            table[style] = (attrs | loupe_color_pair(pair), pair)
        }
        return table
    }
}
