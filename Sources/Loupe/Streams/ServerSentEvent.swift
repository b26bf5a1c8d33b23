import Foundation

/// One event of a `text/event-stream`, as the WHATWG HTML standard's event-stream interpretation dispatches it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field, `message` when the block named none.
    public var type: String
    /// The `data:` lines joined with a line feed (the last one's line feed removed).
    public var data: String
    /// The last event ID as of this event (the `id:` field of this block or an earlier one), nil when none was set.
    public var id: String?
    /// The `retry:` field of this block, in milliseconds, when it had a valid one.
    public var retry: Int?

    public init(type: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.type = type
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// The `text/event-stream` parser: bytes in any chunking, events out, as the WHATWG HTML standard (§9.2.6,
/// "Interpreting an event stream") defines them.
///
/// One leading byte-order mark is skipped; lines end with CRLF, LF or CR (a CR at the end of one chunk and an LF at
/// the start of the next are one line end); lines starting with `:` are comments; a field without `:` has an empty
/// value; one space after the colon is dropped; `id` with a NUL or longer than ``maxEventIDBytes`` is ignored;
/// `retry` only counts when all ASCII digits; a block with no `data` dispatches nothing; a block not ended by a blank
/// line when the stream ends is discarded (a missing final newline loses nothing else). Unknown fields are ignored.
/// A value type: ``feed(_:)`` returns what it completed (no package here parses a stream incrementally).
///
/// An event is never delivered cut: one whose data (or one of whose lines) would pass ``maxLineBytes`` is dropped
/// whole and counted in ``droppedEvents``, its bytes released at once; any other line past the cap is ignored. So
/// what the parser holds stays under twice the cap whatever the stream sends.
public struct EventStreamParser: Sendable {
    private var line: [UInt8] = []
    /// The current line passed ``maxLineBytes``: only its first bytes are held (enough to read its field name).
    private var lineCut = false
    /// The current block's data passed ``maxLineBytes``: its data is released and the block dispatches nothing.
    private var dataDropped = false
    private var afterCR = false
    private var atStart = true
    private var data: [UInt8] = []
    private var hasData = false
    private var type: String?
    private var blockRetry: Int?
    /// The `id:` seen so far; it becomes ``lastEventID`` at the next blank line (a block cut short does not move it).
    private var idBuffer: String?
    /// The stream's last event ID: what `Last-Event-ID` carries on a reconnection.
    public private(set) var lastEventID: String?
    /// The reconnection time the stream last set with `retry:`, in milliseconds.
    public private(set) var retry: Int?
    /// Bytes of one line or event beyond which the line or event is dropped (a hostile stream cannot grow memory
    /// forever).
    public let maxLineBytes: Int
    /// The longest `id:` kept, in bytes: it is sent back as `Last-Event-ID` on every reconnection.
    public static let maxEventIDBytes = 1024
    /// Events dropped whole because their data passed ``maxLineBytes``.
    public private(set) var droppedEvents = 0
    /// The bytes of the pending line and block the parser holds now (what the cap bounds).
    public var bufferedBytes: Int { line.count + data.count }

    public init(lastEventID: String? = nil, maxLineBytes: Int = 16 << 20) {
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
        self.maxLineBytes = maxLineBytes
    }

    /// Parses the next bytes; returns the events they completed, in order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            switch byte {
            case 0x0A:
                if afterCR { afterCR = false; continue }
                endLine(into: &events)
            case 0x0D:
                afterCR = true
                endLine(into: &events)
            default:
                afterCR = false
                if line.count < maxLineBytes { line.append(byte) } else { lineCut = true }
            }
        }
        return events
    }

    /// The stream ended: the pending line and block are discarded, and the parser is ready for a new connection
    /// (keeping ``lastEventID`` and ``retry``, as a reconnecting client does).
    public mutating func reset() {
        line.removeAll(keepingCapacity: true)
        lineCut = false
        data.removeAll(keepingCapacity: true)
        hasData = false
        dataDropped = false
        type = nil
        blockRetry = nil
        idBuffer = lastEventID
        afterCR = false
        atStart = true
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        defer {
            line.removeAll(keepingCapacity: !lineCut)
            lineCut = false
        }
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        guard !line.isEmpty else { return dispatch(into: &events) }
        if line[0] == UInt8(ascii: ":") { return }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line[...]
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "event" where !lineCut:
            type = String(decoding: value, as: UTF8.self)
        case "data":
            hasData = true
            guard !dataDropped else { break }
            // The line feed that joins it to the next line counts too: appended outside the check, a stream of
            // empty `data:` lines grew one event without end (issue 44, item 9).
            if lineCut || data.count + value.count + 1 > maxLineBytes {
                dataDropped = true
                data = []
            } else {
                data.append(contentsOf: value)
                data.append(0x0A)
            }
        case "id" where !lineCut:
            // Past the bound it is a peer's attempt to have a header of megabytes sent (and recorded) on every
            // reconnection: ignored, as an id with a NUL is.
            if !value.contains(0), value.count <= Self.maxEventIDBytes { idBuffer = String(decoding: value, as: UTF8.self) }
        case "retry" where !lineCut:
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }), let milliseconds = Int(String(decoding: value, as: UTF8.self)) {
                retry = milliseconds
                blockRetry = milliseconds
            }
        default:
            break
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            dataDropped = false
            type = nil
            blockRetry = nil
        }
        lastEventID = idBuffer.flatMap { $0.isEmpty ? nil : $0 }
        guard hasData else { return }
        guard !dataDropped else {
            droppedEvents += 1
            return
        }
        if data.last == 0x0A { data.removeLast() }
        let name = type.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
        events.append(ServerSentEvent(type: name, data: String(decoding: data, as: UTF8.self), id: lastEventID, retry: blockRetry))
    }
}
