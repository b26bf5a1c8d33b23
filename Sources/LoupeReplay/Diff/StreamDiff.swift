import Foundation
import Loupe
import LoupeProtobuf
import LoupeTrace

/// Two streams' server messages compared in order: how many, then each message's type and payload (JSON by
/// structure, each difference at `message[N] $.path`, so `--ignore $.path` applies to every message; text as a
/// whole; bytes by size; a gRPC message field by field, ``GRPCMessageDocument``). The client's messages are what
/// the replay sent, so they are not compared.
package enum StreamDiff {
    /// `method` and `messageTypes` read gRPC messages (the recorded `package.Service/Method`, a descriptor set).
    package static func differences(_ old: TraceStream, _ new: TraceStream, method: String = "",
                                    messageTypes: ProtobufDescriptorSet? = nil) -> [Difference] {
        let grpc = old.kind == .grpc && new.kind == .grpc
        let before = old.messages.filter { $0.direction == .received }
        let after = new.messages.filter { $0.direction == .received }
        var result: [Difference] = []
        if old.receivedCount != new.receivedCount {
            result.append(Difference(.messages, .changed(from: "\(old.receivedCount)", to: "\(new.receivedCount)")))
        }
        for index in 0..<max(before.count, after.count) {
            guard index < before.count else { result.append(Difference(.message(index, nil), .added(summary(after[index])))); continue }
            guard index < after.count else { result.append(Difference(.message(index, nil), .removed(summary(before[index])))); continue }
            result += differences(before[index], after[index], at: index,
                                  grpcMethod: grpc ? method : nil, messageTypes: messageTypes)
        }
        if old.closeCode != new.closeCode || old.closedBy != new.closedBy {
            result.append(Difference(.messages, .changed(from: close(old), to: close(new))))
        }
        return result
    }

    static func differences(_ old: TraceMessage, _ new: TraceMessage, at index: Int, grpcMethod: String? = nil,
                            messageTypes: ProtobufDescriptorSet? = nil) -> [Difference] {
        guard old.type == new.type else {
            return [Difference(.message(index, nil), .changed(from: summary(old), to: summary(new)))]
        }
        guard old.payload != new.payload else { return [] }
        if let grpcMethod, !old.isTruncated, !new.isTruncated,
           let before = GRPCMessageDocument.document(old.payload, method: grpcMethod, received: true, messageTypes: messageTypes),
           let after = GRPCMessageDocument.document(new.payload, method: grpcMethod, received: true, messageTypes: messageTypes) {
            return JSONDiff.differences(before, after).map { difference in
                guard case .json(let path) = difference.location else { return difference }
                return Difference(.message(index, path), difference.change)
            }
        }
        if BodyDiff.looksLikeJSON(old.payload, type: nil), BodyDiff.looksLikeJSON(new.payload, type: nil),
           let before = JSONParser.parse(old.payload), let after = JSONParser.parse(new.payload) {
            return JSONDiff.differences(before, after).map { difference in
                guard case .json(let path) = difference.location else { return difference }
                return Difference(.message(index, path), difference.change)
            }
        }
        return [Difference(.message(index, nil), .changed(from: summary(old), to: summary(new)))]
    }

    /// A message as one short line: its type and its payload's start (bytes by size).
    static func summary(_ message: TraceMessage) -> String {
        if let text = String(validating: message.payload, as: UTF8.self) {
            let line = text.count > 60 ? String(text.prefix(60)) + "…" : text
            return "\(message.type) \(line)"
        }
        return "\(message.type) \(message.size) bytes"
    }

    static func close(_ stream: TraceStream) -> String {
        guard let by = stream.closedBy else { return "not closed" }
        return "closed by the \(by)" + (stream.closeCode.map { " \($0)" } ?? "")
    }
}
