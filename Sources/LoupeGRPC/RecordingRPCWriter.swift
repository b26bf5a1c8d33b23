import GRPCCore
import Loupe

/// The request's writer, handed to the app's producer: each message is recorded as sent, then written.
struct RecordingRPCWriter<Element: Sendable>: RPCWriterProtocol {
    let base: RPCWriter<Element>
    let call: GRPCCallRecording

    func write(_ element: Element) async throws {
        call.message(.sent, element)
        try await base.write(element)
    }

    func write(contentsOf elements: some Sequence<Element>) async throws {
        for element in elements { call.message(.sent, element) }
        try await base.write(contentsOf: elements)
    }
}
