import Foundation
import LoupeTrace

/// The request of a ``HAREntry``.
public struct HARRequest: Sendable, Hashable, Codable {
    public var method: String
    public var url: String
    public var httpVersion: String
    public var cookies: [HARCookie]
    public var headers: [HARNameValue]
    public var queryString: [HARNameValue]
    public var postData: HARPostData?
    /// `-1`: Loupe does not see the bytes of the head on the wire.
    public var headersSize: Int
    /// The body's size in bytes (`0` without a body).
    public var bodySize: Int
    public var comment: String?

    public init(method: String, url: String, httpVersion: String, cookies: [HARCookie] = [],
                headers: [HARNameValue] = [], queryString: [HARNameValue] = [], postData: HARPostData? = nil,
                headersSize: Int = -1, bodySize: Int, comment: String? = nil) {
        self.method = method
        self.url = url
        self.httpVersion = httpVersion
        self.cookies = cookies
        self.headers = headers
        self.queryString = queryString
        self.postData = postData
        self.headersSize = headersSize
        self.bodySize = bodySize
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey {
        case method, url, httpVersion, cookies, headers, queryString, postData, headersSize, bodySize, comment
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        method = container.lenientString(.method) ?? "GET"
        url = try container.requiredString(.url)
        httpVersion = container.lenientString(.httpVersion) ?? ""
        cookies = (try? container.decodeIfPresent([HARCookie].self, forKey: .cookies)) ?? []
        headers = try container.decodeIfPresent([HARNameValue].self, forKey: .headers) ?? []
        queryString = (try? container.decodeIfPresent([HARNameValue].self, forKey: .queryString)) ?? []
        postData = try container.decodeIfPresent(HARPostData.self, forKey: .postData)
        headersSize = container.lenientInt(.headersSize) ?? -1
        bodySize = container.lenientInt(.bodySize) ?? -1
        comment = container.lenientString(.comment)
    }
}

/// The response of a ``HAREntry``; a request that got none has status `0` (as browsers write it).
public struct HARResponse: Sendable, Hashable, Codable {
    public var status: Int
    public var statusText: String
    public var httpVersion: String
    public var cookies: [HARCookie]
    public var headers: [HARNameValue]
    public var content: HARContent
    public var redirectURL: String
    public var headersSize: Int
    public var bodySize: Int
    public var comment: String?

    public init(status: Int, statusText: String, httpVersion: String, cookies: [HARCookie] = [],
                headers: [HARNameValue] = [], content: HARContent, redirectURL: String = "", headersSize: Int = -1,
                bodySize: Int, comment: String? = nil) {
        self.status = status
        self.statusText = statusText
        self.httpVersion = httpVersion
        self.cookies = cookies
        self.headers = headers
        self.content = content
        self.redirectURL = redirectURL
        self.headersSize = headersSize
        self.bodySize = bodySize
        self.comment = comment
    }

    /// What a request that got no response has.
    public static let none = HARResponse(
        status: 0, statusText: "", httpVersion: "", content: HARContent(size: 0, mimeType: "x-unknown"), bodySize: -1)

    enum CodingKeys: String, CodingKey {
        case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize, comment
        case error = "_error"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = container.lenientInt(.status) ?? 0
        statusText = container.lenientString(.statusText) ?? ""
        httpVersion = container.lenientString(.httpVersion) ?? ""
        cookies = (try? container.decodeIfPresent([HARCookie].self, forKey: .cookies)) ?? []
        headers = try container.decodeIfPresent([HARNameValue].self, forKey: .headers) ?? []
        content = try container.decodeIfPresent(HARContent.self, forKey: .content)
            ?? HARContent(size: 0, mimeType: "x-unknown")
        redirectURL = container.lenientString(.redirectURL) ?? ""
        headersSize = container.lenientInt(.headersSize) ?? -1
        bodySize = container.lenientInt(.bodySize) ?? -1
        comment = container.lenientString(.comment)
        browserError = container.lenientString(.error)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(statusText, forKey: .statusText)
        try container.encode(httpVersion, forKey: .httpVersion)
        try container.encode(cookies, forKey: .cookies)
        try container.encode(headers, forKey: .headers)
        try container.encode(content, forKey: .content)
        try container.encode(redirectURL, forKey: .redirectURL)
        try container.encode(headersSize, forKey: .headersSize)
        try container.encode(bodySize, forKey: .bodySize)
        try container.encodeIfPresent(comment, forKey: .comment)
        try container.encodeIfPresent(browserError, forKey: .error)
    }

    /// Chrome's `_error` (`net::ERR_CONNECTION_REFUSED`): why a request got no response.
    public var browserError: String?
}

/// A header or query item.
public struct HARNameValue: Sendable, Hashable, Codable {
    public var name: String
    public var value: String
    public var comment: String?

    public init(name: String, value: String, comment: String? = nil) {
        self.name = name
        self.value = value
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case name, value, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = container.lenientString(.name) ?? ""
        value = container.lenientString(.value) ?? ""
        comment = container.lenientString(.comment)
    }
}

/// A cookie sent (from `Cookie`) or set (from `Set-Cookie`).
public struct HARCookie: Sendable, Hashable, Codable {
    public var name: String
    public var value: String
    public var path: String?
    public var domain: String?
    public var expires: String?
    public var httpOnly: Bool?
    public var secure: Bool?
    public var comment: String?

    public init(name: String, value: String, path: String? = nil, domain: String? = nil, expires: String? = nil,
                httpOnly: Bool? = nil, secure: Bool? = nil, comment: String? = nil) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.expires = expires
        self.httpOnly = httpOnly
        self.secure = secure
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case name, value, path, domain, expires, httpOnly, secure, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = container.lenientString(.name) ?? ""
        value = container.lenientString(.value) ?? ""
        path = container.lenientString(.path)
        domain = container.lenientString(.domain)
        expires = container.lenientString(.expires)
        httpOnly = try? container.decodeIfPresent(Bool.self, forKey: .httpOnly)
        secure = try? container.decodeIfPresent(Bool.self, forKey: .secure)
        comment = container.lenientString(.comment)
    }
}

/// A request body: `text` (base64 when `encoding` is `"base64"`, for binary bodies) or form `params`.
public struct HARPostData: Sendable, Hashable, Codable {
    public var mimeType: String
    public var params: [HARParam]?
    public var text: String?
    /// `"base64"` when `text` holds base64 (not in the 1.2 spec for requests, but written and read by many tools).
    public var encoding: String?
    public var comment: String?

    public init(mimeType: String, params: [HARParam]? = nil, text: String? = nil, encoding: String? = nil,
                comment: String? = nil) {
        self.mimeType = mimeType
        self.params = params
        self.text = text
        self.encoding = encoding
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case mimeType, params, text, encoding, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mimeType = container.lenientString(.mimeType) ?? ""
        params = try? container.decodeIfPresent([HARParam].self, forKey: .params)
        text = container.lenientString(.text)
        encoding = container.lenientString(.encoding)
        comment = container.lenientString(.comment)
    }
}

/// One posted form field.
public struct HARParam: Sendable, Hashable, Codable {
    public var name: String
    public var value: String?
    public var fileName: String?
    public var contentType: String?
    public var comment: String?

    public init(name: String, value: String? = nil, fileName: String? = nil, contentType: String? = nil,
                comment: String? = nil) {
        self.name = name
        self.value = value
        self.fileName = fileName
        self.contentType = contentType
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case name, value, fileName, contentType, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = container.lenientString(.name) ?? ""
        value = container.lenientString(.value)
        fileName = container.lenientString(.fileName)
        contentType = container.lenientString(.contentType)
        comment = container.lenientString(.comment)
    }
}

/// A response body: `size` bytes in all, `text` what was kept (base64 when `encoding` is `"base64"`).
public struct HARContent: Sendable, Hashable, Codable {
    public var size: Int
    public var compression: Int?
    public var mimeType: String
    public var text: String?
    public var encoding: String?
    public var comment: String?

    public init(size: Int, compression: Int? = nil, mimeType: String, text: String? = nil, encoding: String? = nil,
                comment: String? = nil) {
        self.size = size
        self.compression = compression
        self.mimeType = mimeType
        self.text = text
        self.encoding = encoding
        self.comment = comment
    }

    enum CodingKeys: String, CodingKey { case size, compression, mimeType, text, encoding, comment }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = container.lenientInt(.size) ?? -1
        compression = container.lenientInt(.compression)
        mimeType = container.lenientString(.mimeType) ?? ""
        text = container.lenientString(.text)
        encoding = container.lenientString(.encoding)
        comment = container.lenientString(.comment)
    }
}
