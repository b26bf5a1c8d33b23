import Foundation
import Loupe

extension Client {
    /// The resilient stack on AsyncHTTPClient: `Client.resilient(baseURL: url)` is all most apps need on Linux.
    public static func resilient(
        baseURL: URL,
        observer: any ClientObserver = NoOpClientObserver(),
        options: ResilienceOptions = ResilienceOptions(),
        configuration: ClientConfiguration = ClientConfiguration()
    ) -> Client {
        resilient(baseURL: baseURL, transport: AsyncHTTPClientTransport(), observer: observer, options: options,
                  configuration: configuration)
    }
}
