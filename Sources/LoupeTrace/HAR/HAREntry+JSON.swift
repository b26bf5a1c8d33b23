import Foundation

// Each HAR type writes itself as `JSONEncoder` with HARWriter's options would encode it: the same members (absent
// optionals left out), keys in sorted order. HARStreamExportTests compare the two on varied exchanges.

extension HAREntry {
    func write(to json: inout PrettyJSON) throws {
        try json.object { json in
            if let loupe {
                json.key("_loupe")
                try loupe.write(to: &json)
            }
            json.key("cache")
            cache.write(to: &json)
            json.member("comment", comment)
            json.member("connection", connection)
            json.member("pageref", pageref)
            json.key("request")
            request.write(to: &json)
            json.key("response")
            response.write(to: &json)
            json.member("serverIPAddress", serverIPAddress)
            json.member("startedDateTime", startedDateTime)
            try json.member("time", time)
            json.key("timings")
            try timings.write(to: &json)
        }
    }
}

extension HARCreator {
    func write(to json: inout PrettyJSON) {
        json.object { json in
            json.member("comment", comment)
            json.member("name", name)
            json.member("version", version)
        }
    }
}

extension HARCache {
    func write(to json: inout PrettyJSON) {
        json.object { json in json.member("comment", comment) }
    }
}

extension HARRequest {
    func write(to json: inout PrettyJSON) {
        json.object { json in
            json.member("bodySize", bodySize)
            json.member("comment", comment)
            json.key("cookies")
            HARCookie.write(cookies, to: &json)
            json.key("headers")
            HARNameValue.write(headers, to: &json)
            json.member("headersSize", headersSize)
            json.member("httpVersion", httpVersion)
            json.member("method", method)
            if let postData {
                json.key("postData")
                postData.write(to: &json)
            }
            json.key("queryString")
            HARNameValue.write(queryString, to: &json)
            json.member("url", url)
        }
    }
}

extension HARResponse {
    func write(to json: inout PrettyJSON) {
        json.object { json in
            json.member("_error", browserError)
            json.member("bodySize", bodySize)
            json.member("comment", comment)
            json.key("content")
            content.write(to: &json)
            json.key("cookies")
            HARCookie.write(cookies, to: &json)
            json.key("headers")
            HARNameValue.write(headers, to: &json)
            json.member("headersSize", headersSize)
            json.member("httpVersion", httpVersion)
            json.member("redirectURL", redirectURL)
            json.member("status", status)
            json.member("statusText", statusText)
        }
    }
}

extension HARNameValue {
    static func write(_ items: [HARNameValue], to json: inout PrettyJSON) {
        json.array { json in
            for item in items {
                json.element()
                json.object { json in
                    json.member("comment", item.comment)
                    json.member("name", item.name)
                    json.member("value", item.value)
                }
            }
        }
    }
}

extension HARCookie {
    static func write(_ cookies: [HARCookie], to json: inout PrettyJSON) {
        json.array { json in
            for cookie in cookies {
                json.element()
                json.object { json in
                    json.member("comment", cookie.comment)
                    json.member("domain", cookie.domain)
                    json.member("expires", cookie.expires)
                    json.member("httpOnly", cookie.httpOnly)
                    json.member("name", cookie.name)
                    json.member("path", cookie.path)
                    json.member("secure", cookie.secure)
                    json.member("value", cookie.value)
                }
            }
        }
    }
}

extension HARPostData {
    func write(to json: inout PrettyJSON) {
        json.object { json in
            json.member("comment", comment)
            json.member("encoding", encoding)
            json.member("mimeType", mimeType)
            if let params {
                json.key("params")
                json.array { json in
                    for param in params {
                        json.element()
                        json.object { json in
                            json.member("comment", param.comment)
                            json.member("contentType", param.contentType)
                            json.member("fileName", param.fileName)
                            json.member("name", param.name)
                            json.member("value", param.value)
                        }
                    }
                }
            }
            json.member("text", text)
        }
    }
}

extension HARContent {
    func write(to json: inout PrettyJSON) {
        json.object { json in
            json.member("comment", comment)
            json.member("compression", compression)
            json.member("encoding", encoding)
            json.member("mimeType", mimeType)
            json.member("size", size)
            json.member("text", text)
        }
    }
}

extension HARTimings {
    func write(to json: inout PrettyJSON) throws {
        try json.object { json in
            try json.member("blocked", blocked)
            json.member("comment", comment)
            try json.member("connect", connect)
            try json.member("dns", dns)
            try json.member("receive", receive)
            try json.member("send", send)
            try json.member("ssl", ssl)
            try json.member("wait", wait)
        }
    }
}
