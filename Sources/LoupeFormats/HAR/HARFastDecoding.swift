import Foundation
import LoupeTrace

/// A HAR entry read from the one JSON tree (``JSONParser``, matching `JSONDecoder`) when it is plain: every field
/// of the type it should be (strings as strings, whole numbers where HAR has integers), no `null`, no duplicate
/// keys, no `_loupe` data. Each field is read as the types' `init(from:)` reads it from `JSONDecoder`; anything
/// else gives `nil` and the entry goes to `JSONDecoder`, whose reading (lenient conversions) and errors are the
/// reference. The keyed containers `JSONDecoder` builds for every header object were most of an import's decoding.
enum HARFastDecoding {
    static func entry(_ bytes: Data) -> HAREntry? {
        guard let value = JSONParser.parse(bytes, matchingDecoder: true) else { return nil }
        return try? entry(Fields(value))
    }

    /// Thrown wherever the entry is not plain; never escapes ``HARFastDecoding``.
    struct NotPlain: Error {}

    private static func entry(_ fields: Fields) throws(NotPlain) -> HAREntry {
        guard fields.value("_loupe") == nil, fields.value("_webSocketMessages") == nil, let request = try fields.object("request") else { throw NotPlain() }
        return HAREntry(
            pageref: try fields.string("pageref"), startedDateTime: try fields.required("startedDateTime"),
            time: try fields.double("time") ?? -1, request: try self.request(request),
            response: try fields.object("response").map(response) ?? .none,
            cache: HARCache(comment: try fields.object("cache")?.string("comment")),
            timings: try fields.object("timings").map(timings) ?? .unknown,
            serverIPAddress: try fields.string("serverIPAddress"), connection: try fields.string("connection"),
            comment: try fields.string("comment"))
    }

    private static func request(_ fields: Fields) throws(NotPlain) -> HARRequest {
        HARRequest(
            method: try fields.string("method") ?? "GET", url: try fields.required("url"),
            httpVersion: try fields.string("httpVersion") ?? "", cookies: try fields.objects("cookies", cookie),
            headers: try fields.objects("headers", nameValue), queryString: try fields.objects("queryString", nameValue),
            postData: try fields.object("postData").map(postData), headersSize: try fields.int("headersSize") ?? -1,
            bodySize: try fields.int("bodySize") ?? -1, comment: try fields.string("comment"))
    }

    private static func response(_ fields: Fields) throws(NotPlain) -> HARResponse {
        var response = HARResponse(
            status: try fields.int("status") ?? 0, statusText: try fields.string("statusText") ?? "",
            httpVersion: try fields.string("httpVersion") ?? "", cookies: try fields.objects("cookies", cookie),
            headers: try fields.objects("headers", nameValue),
            content: try fields.object("content").map(content) ?? HARContent(size: 0, mimeType: "x-unknown"),
            redirectURL: try fields.string("redirectURL") ?? "", headersSize: try fields.int("headersSize") ?? -1,
            bodySize: try fields.int("bodySize") ?? -1, comment: try fields.string("comment"))
        response.browserError = try fields.string("_error")
        return response
    }

    private static func nameValue(_ fields: Fields) throws(NotPlain) -> HARNameValue {
        HARNameValue(name: try fields.string("name") ?? "", value: try fields.string("value") ?? "",
                     comment: try fields.string("comment"))
    }

    private static func cookie(_ fields: Fields) throws(NotPlain) -> HARCookie {
        HARCookie(name: try fields.string("name") ?? "", value: try fields.string("value") ?? "",
                  path: try fields.string("path"), domain: try fields.string("domain"),
                  expires: try fields.string("expires"), httpOnly: try fields.bool("httpOnly"),
                  secure: try fields.bool("secure"), comment: try fields.string("comment"))
    }

    private static func postData(_ fields: Fields) throws(NotPlain) -> HARPostData {
        let params: [HARParam]? = fields.value("params") == nil ? nil : try fields.objects("params") { (param: Fields) throws(NotPlain) in
            HARParam(name: try param.string("name") ?? "", value: try param.string("value"),
                     fileName: try param.string("fileName"), contentType: try param.string("contentType"),
                     comment: try param.string("comment"))
        }
        return HARPostData(mimeType: try fields.string("mimeType") ?? "", params: params, text: try fields.string("text"),
                           encoding: try fields.string("encoding"), comment: try fields.string("comment"))
    }

    private static func content(_ fields: Fields) throws(NotPlain) -> HARContent {
        HARContent(size: try fields.int("size") ?? -1, compression: try fields.int("compression"),
                   mimeType: try fields.string("mimeType") ?? "", text: try fields.string("text"),
                   encoding: try fields.string("encoding"), comment: try fields.string("comment"))
    }

    private static func timings(_ fields: Fields) throws(NotPlain) -> HARTimings {
        HARTimings(blocked: try fields.double("blocked"), dns: try fields.double("dns"),
                   connect: try fields.double("connect"), send: try fields.double("send") ?? -1,
                   wait: try fields.double("wait") ?? -1, receive: try fields.double("receive") ?? -1,
                   ssl: try fields.double("ssl"), comment: try fields.string("comment"))
    }

    /// An object's members, each of one plain type or absent (the parser has refused repeated keys).
    struct Fields {
        let object: JSONObject

        init(_ value: JSONValue) throws(NotPlain) {
            guard case .object(let object) = value else { throw NotPlain() }
            self.object = object
        }

        func value(_ key: String) -> JSONValue? {
            object[key]
        }

        func string(_ key: String) throws(NotPlain) -> String? {
            switch value(key) {
            case nil: return nil
            case .string(let text): return text
            default: throw NotPlain()
            }
        }

        func required(_ key: String) throws(NotPlain) -> String {
            guard let text = try string(key) else { throw NotPlain() }
            return text
        }

        /// A whole number written without fraction or exponent, in `Int`'s range.
        func int(_ key: String) throws(NotPlain) -> Int? {
            switch value(key) {
            case nil: return nil
            case .number(let number):
                let text = number.text
                guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }),
                      let number = Int(text) else { throw NotPlain() }
                return number
            default: throw NotPlain()
            }
        }

        func double(_ key: String) throws(NotPlain) -> Double? {
            switch value(key) {
            case nil: return nil
            case .number(let number):
                let text = number.text
                // Out of range either way (`1e400`, `1e-400`) is left to the decoder.
                guard let number = Double(text), number.isFinite,
                      number != 0 || !text.utf8.prefix(while: { $0 | 0x20 != UInt8(ascii: "e") })
                          .contains(where: { (UInt8(ascii: "1")...UInt8(ascii: "9")).contains($0) })
                else { throw NotPlain() }
                return number
            default: throw NotPlain()
            }
        }

        func bool(_ key: String) throws(NotPlain) -> Bool? {
            switch value(key) {
            case nil: return nil
            case .bool(let flag): return flag
            default: throw NotPlain()
            }
        }

        func object(_ key: String) throws(NotPlain) -> Fields? {
            guard let value = value(key) else { return nil }
            return try Fields(value)
        }

        /// An array of objects, each read by `read`; empty when absent.
        func objects<T>(_ key: String, _ read: (Fields) throws(NotPlain) -> T) throws(NotPlain) -> [T] {
            switch value(key) {
            case nil: return []
            case .array(let elements):
                var result: [T] = []
                result.reserveCapacity(elements.count)
                for element in elements { result.append(try read(try Fields(element))) }
                return result
            default: throw NotPlain()
            }
        }
    }
}
