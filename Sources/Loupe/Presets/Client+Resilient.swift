import Foundation

extension Client {
    /// A client with the whole resilient stack in the documented order (see ``ResilienceOptions/middlewares(clock:)``).
    ///
    /// ```swift
    /// let client = Client.resilient(baseURL: url, transport: AsyncHTTPClientTransport(), observer: inspector)
    /// ```
    public static func resilient(
        baseURL: URL,
        transport: any ClientTransport,
        observer: any ClientObserver = NoOpClientObserver(),
        options: ResilienceOptions = ResilienceOptions(),
        configuration: ClientConfiguration = ClientConfiguration()
    ) -> Client {
        Client(
            baseURL: baseURL, transport: transport, middlewares: options.middlewares(clock: configuration.clock),
            observer: observer, configuration: configuration)
    }
}
