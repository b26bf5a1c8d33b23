import Foundation

/// Byte-level helpers of the detail view's text (``JSONLineSource``, ``TextLines``); the JSON itself is read by
/// the one `JSONTokenizer`.
enum JSONBytes {
    /// Whether `byte` is or may start a control character in UTF-8 (C0, DEL, or the lead byte of C1): such tokens
    /// go through `TerminalText`; the rest cannot drive a terminal, and skipping the check keeps large bodies fast.
    static func mayBeControl(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == 0xC2
    }
}
