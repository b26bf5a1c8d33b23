import Foundation
import Loupe

// `_loupe` as `JSONEncoder` with HARWriter's options encodes it: times as seconds since 1970 to the microsecond
// (``HARWriter/microseconds(_:)``), ids as upper-case UUID text, keys in sorted order.

extension HARLoupeEntry {
    func write(to json: inout PrettyJSON) throws {
        try json.object { json in
            json.key("attempts")
            try json.array { json in
                for attempt in attempts {
                    json.element()
                    try attempt.write(to: &json)
                }
            }
            try json.member("endedAt", time: endedAt)
            json.member("error", error)
            json.key("events")
            try json.array { json in
                for event in events {
                    json.element()
                    try event.write(to: &json)
                }
            }
            json.member("format", format)
            json.member("id", id.uuidString)
            json.member("operation", operation)
            json.member("outcome", outcome)
            json.member("replayOf", replayOf?.uuidString)
            requestBody.map { $0.write(named: "requestBody", to: &json) }
            responseBody.map { $0.write(named: "responseBody", to: &json) }
            try json.member("startedAt", time: startedAt)
            json.member("status", status)
        }
    }
}

extension HARLoupeBody {
    func write(named name: StaticString, to json: inout PrettyJSON) {
        json.key(name)
        json.object { json in
            json.member("size", size)
            json.member("truncated", truncated)
        }
    }
}

extension TraceAttempt {
    func write(to json: inout PrettyJSON) throws {
        try json.object { json in
            json.member("circuitState", circuitState)
            try json.member("endedAt", time: endedAt)
            json.member("error", error)
            try json.member("firstByteAt", time: firstByteAt)
            if !notes.isEmpty { json.member("notes", notes) }
            json.member("number", number)
            try json.member("requestSentAt", time: requestSentAt)
            try json.member("retryDelay", retryDelay)
            json.member("retryReason", retryReason)
            try json.member("startedAt", time: startedAt)
            json.member("status", status)
        }
    }
}

extension TraceEvent {
    func write(to json: inout PrettyJSON) throws {
        try json.object { json in
            try json.member("at", time: at)
            json.member("attributes", attributes)
            json.member("kind", kind.rawValue)
            json.member("message", message)
        }
    }
}

extension PrettyJSON {
    /// A time as HAR files carry it in `_loupe`: seconds since 1970, on the microsecond grid.
    mutating func member(_ name: StaticString, time: Date?) throws {
        guard let time else { return }
        try member(name, HARWriter.microseconds(time.timeIntervalSince1970))
    }
}
