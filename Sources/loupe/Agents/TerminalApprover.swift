import Foundation
import LoupeApproval
import LoupeTrace
import Synchronization

/// `--approve-in-terminal`: asks on the server's controlling terminal (`/dev/tty`), never on stdin or stdout, which
/// carry the agent's protocol, so the agent cannot answer its own question. One question at a time; anything but
/// "y" or "yes" refuses, and so does a terminal that closes. What is shown comes from the store, made safe for a
/// terminal.
final class TerminalApprover: AgentApprover {
    private let path: String
    /// Serialises questions: two agent calls at once are asked one after the other, never interleaved.
    private let asking = Mutex(())

    init(path: String = "/dev/tty") { self.path = path }

    /// Whether a terminal can be opened to ask on.
    var isAvailable: Bool {
        let descriptor = open(path, O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    func approve(_ request: AgentRequest) async -> Bool {
        await withCheckedContinuation { continuation in
            // Blocking terminal reads stay off Swift's cooperative pool, which has as many threads as cores.
            Thread.detachNewThread { [self] in
                continuation.resume(returning: asking.withLock { _ in ask(request) })
            }
        }
    }

    private func ask(_ request: AgentRequest) -> Bool {
        let descriptor = open(path, O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var text = "\r\nloupe mcp: an \(TerminalText.line(request.origin)) asks to \(TerminalText.line(request.summary))\r\n"
        for line in request.detail { text += "    \(TerminalText.line(line))\r\n" }
        text += "Approve? [y/N] "
        _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        // The whole line is read (a long one would otherwise answer the next question); only its start is kept.
        while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") {
            if answer.count < 16 { answer.append(byte) }
        }
        let word = String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
        let approved = word == "y" || word == "yes"
        let said = approved ? "approved\r\n" : "refused\r\n"
        _ = said.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        return approved
    }
}
