import Foundation

/// How ``ConditionalGETMiddleware`` uses its cache for one request.
public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
    /// Revalidate a stored response with `If-None-Match` / `If-Modified-Since`; a 304 returns the stored body.
    case useCache = "use-cache"
    /// Send the request unconditionally, then store the fresh response.
    case reloadIgnoringCache = "reload"
    /// Return a stored response without asking the server; load (and store) only when nothing is stored.
    case returnCacheElseLoad = "cache-else-load"
    /// Neither read nor write the cache.
    case bypassCache = "bypass"
}
