import Foundation
import LoupeProtobuf
import LoupeTrace

/// What a diff leaves out: the user's patterns, the noise learned from repeated runs, the volatile headers.
package struct DiffOptions: Sendable {
    /// `--ignore` patterns.
    package var ignore: [DiffPattern]
    /// Locations seen to change between identical requests.
    package var noise: NoiseProfile
    /// Header names (lowercase) never compared.
    package var volatileHeaders: Set<String>
    /// The descriptor set gRPC messages are read by, field by name; without one, by field number.
    package var messageTypes: ProtobufDescriptorSet?

    package init(ignore: [DiffPattern] = [], noise: NoiseProfile = NoiseProfile(),
                 volatileHeaders: Set<String> = HeaderDiff.volatileNames, messageTypes: ProtobufDescriptorSet? = nil) {
        self.ignore = ignore
        self.noise = noise
        self.volatileHeaders = volatileHeaders
        self.messageTypes = messageTypes
    }
}

/// A replay's response compared with the original's: status, headers, then body.
///
/// Each difference lands in one of three lists: left out by an `--ignore` pattern, explained as noise (it also
/// changed between identical runs), or a real difference.
package struct ExchangeDiff: Sendable, Equatable {
    /// Real differences: what makes `loupe replay --diff` exit 1.
    package var differences: [Difference]
    /// Differences at locations that also changed between identical runs.
    package var noise: [Difference]
    /// Differences an `--ignore` pattern left out.
    package var ignored: [Difference]
    /// What limited the comparison (a truncated body).
    package var notes: [String]

    /// Whether the replay answered as the original did, noise and ignored parts aside.
    package var isSame: Bool { differences.isEmpty }

    package init(original: TraceExchange, replay: TraceExchange, options: DiffOptions = DiffOptions()) {
        differences = []
        noise = []
        ignored = []
        notes = Self.notes(original, replay)
        for difference in Self.differences(original, replay, volatileHeaders: options.volatileHeaders,
                                           messageTypes: options.messageTypes) {
            if options.ignore.contains(where: { $0.matches(difference.location) }) {
                ignored.append(difference)
            } else if options.noise.covers(difference.location) {
                noise.append(difference)
            } else {
                differences.append(difference)
            }
        }
    }

    /// Every difference from `old`'s response to `new`'s. When either has no response (a transport failure),
    /// only the status is compared: headers and bodies would all differ and say nothing more.
    package static func differences(_ old: TraceExchange, _ new: TraceExchange,
                                    volatileHeaders: Set<String> = HeaderDiff.volatileNames,
                                    messageTypes: ProtobufDescriptorSet? = nil) -> [Difference] {
        guard let oldStatus = old.status, let newStatus = new.status else {
            guard old.status != new.status else { return [] }
            return [Difference(.status, .changed(from: old.status.map(String.init) ?? "none",
                                                 to: new.status.map(String.init) ?? "none"))]
        }
        var result: [Difference] = []
        if oldStatus != newStatus { result.append(Difference(.status, .changed(from: "\(oldStatus)", to: "\(newStatus)"))) }
        result += HeaderDiff.differences(old.responseHeaders, new.responseHeaders, ignoring: volatileHeaders)
        if let oldStream = old.stream, let newStream = new.stream {
            // A stream's answer is its messages, not a body.
            return result + StreamDiff.differences(oldStream, newStream, method: old.operation, messageTypes: messageTypes)
        }
        result += BodyDiff.differences(
            old.responseBody?.data ?? Data(), new.responseBody?.data ?? Data(),
            oldType: contentType(old), newType: contentType(new))
        return result
    }

    private static func contentType(_ exchange: TraceExchange) -> String? {
        exchange.responseHeaders.first { $0.name.lowercased() == "content-type" }?.value
    }

    private static func notes(_ original: TraceExchange, _ replay: TraceExchange) -> [String] {
        var notes: [String] = []
        for (role, exchange) in [("original", original), ("replay", replay)] {
            if let body = exchange.responseBody, body.isTruncated {
                notes.append("the \(role)'s response body was recorded only in part (\(body.data.count) of \(body.size) bytes); only that part was compared")
            }
        }
        return notes
    }
}
