import Foundation
@testable import loupe
import Testing

@Suite("Files named on the command line")
struct InputFileTests {
    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let failure as CommandFailure {
            #expect(failure.code == 2)
            return failure.message
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a device, a directory and a FIFO are refused at once with what they are")
    func specialFiles() throws {
        let folder = NSTemporaryDirectory() + "loupe-cli-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)

        #expect(Self.message { try InputFile.regular("/dev/zero", role: "HAR file") }
                == "HAR file /dev/zero is a character device, not a regular file")
        #expect(Self.message { _ = try InputFile.contents("/dev/zero", role: "body file") }
                == "body file /dev/zero is a character device, not a regular file")
        #expect(Self.message { try InputFile.regular(folder, role: "HAR file") } == "HAR file \(folder) is a directory, not a regular file")
        // Would block forever in open(2) or read(2) without the checks.
        #expect(Self.message { _ = try InputFile.contents(fifo, role: "body file") } == "body file \(fifo) is a FIFO (named pipe), not a regular file")
        #expect(Self.message { try InputFile.regular(fifo, role: "HAR file") } == "HAR file \(fifo) is a FIFO (named pipe), not a regular file")
        #expect(Self.message { try InputFile.regular(folder + "/missing", role: "HAR file") }?.hasPrefix("cannot read HAR file") == true)

        let file = folder + "/body.json"
        try Data("{\"a\":1}".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try InputFile.contents(file, role: "body file") == Data("{\"a\":1}".utf8))
        #expect(try InputFile.regular(file, role: "HAR file") == file)
    }
}
