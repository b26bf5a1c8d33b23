import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking

// Linux (FoundationNetworking): no Objective-C message forwarding, so every delegate method is implemented and
// handed to the app's delegate as that protocol (its own method, or the protocol's default when it has none, which
// is what the session would have done without the proxy). Tested by `URLSessionDelegateAdapterTests`.
extension RecordingSessionDelegate: URLSessionDataDelegate, URLSessionDownloadDelegate, URLSessionWebSocketDelegate {
    // MARK: URLSessionDelegate

    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        forwarded?.urlSession(session, didBecomeInvalidWithError: error)
    }

    public func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                           completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard let forwarded else { return completionHandler(.performDefaultHandling, nil) }
        forwarded.urlSession(session, didReceive: challenge, completionHandler: completionHandler)
    }

    // MARK: URLSessionTaskDelegate

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        began(task, in: session)
        guard let forwardedTask else { return completionHandler(request) }
        forwardedTask.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                                 completionHandler: completionHandler)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                           completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        began(task, in: session)
        guard let forwardedTask else { return completionHandler(.performDefaultHandling, nil) }
        forwardedTask.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask,
                           needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void) {
        guard let forwardedTask else { return completionHandler(nil) }
        forwardedTask.urlSession(session, task: task, needNewBodyStream: completionHandler)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
                           totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        began(task, in: session)
        forwardedTask?.urlSession(session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                                  totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // Recorded first: the app's delegate may end the process or the session once it hears of the end.
        completed(task, error: error, in: session)
        forwardedTask?.urlSession(session, task: task, didCompleteWithError: error)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willBeginDelayedRequest request: URLRequest,
                           completionHandler: @escaping @Sendable (URLSession.DelayedRequestDisposition, URLRequest?) -> Void) {
        guard let forwardedTask else { return completionHandler(.continueLoading, nil) }
        forwardedTask.urlSession(session, task: task, willBeginDelayedRequest: request, completionHandler: completionHandler)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        collected(start: metrics.taskInterval.start, task: task, in: session)
        forwardedTask?.urlSession(session, task: task, didFinishCollecting: metrics)
    }

    // MARK: URLSessionDataDelegate

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        received(response, task: dataTask, in: session)
        guard let forwardedData else { return completionHandler(.allow) }
        forwardedData.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome downloadTask: URLSessionDownloadTask) {
        forwardedData?.urlSession(session, dataTask: dataTask, didBecome: downloadTask)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didBecome streamTask: URLSessionStreamTask) {
        forwardedData?.urlSession(session, dataTask: dataTask, didBecome: streamTask)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received(data, task: dataTask, in: session)
        forwardedData?.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
                           completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void) {
        guard let forwardedData else { return completionHandler(proposedResponse) }
        forwardedData.urlSession(session, dataTask: dataTask, willCacheResponse: proposedResponse, completionHandler: completionHandler)
    }

    // MARK: URLSessionDownloadDelegate (a download's response head is recorded; its file is the app's)

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        forwardedDownload?.urlSession(session, downloadTask: downloadTask, didFinishDownloadingTo: location)
    }

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        forwardedDownload?.urlSession(session, downloadTask: downloadTask, didWriteData: bytesWritten,
                                      totalBytesWritten: totalBytesWritten, totalBytesExpectedToWrite: totalBytesExpectedToWrite)
    }

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
                           expectedTotalBytes: Int64) {
        forwardedDownload?.urlSession(session, downloadTask: downloadTask, didResumeAtOffset: fileOffset,
                                      expectedTotalBytes: expectedTotalBytes)
    }

    // MARK: URLSessionWebSocketDelegate

    public func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        forwardedWebSocket?.urlSession(session, webSocketTask: webSocketTask, didOpenWithProtocol: `protocol`)
    }

    public func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                           didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        forwardedWebSocket?.urlSession(session, webSocketTask: webSocketTask, didCloseWith: closeCode, reason: reason)
    }
}

#else

// Apple platforms (compiled there, not run in this project's CI): as Pulse's proxy does, only the observed methods
// are implemented; Foundation asks `responds(to:)` before calling an optional delegate method, and every other
// method goes to the app's delegate by Objective-C message forwarding, so its behaviour is exactly its own.
extension RecordingSessionDelegate: URLSessionDataDelegate {
    public override func responds(to selector: Selector!) -> Bool {
        super.responds(to: selector) || (forwarded?.responds(to: selector) ?? false)
    }

    public override func forwardingTarget(for selector: Selector!) -> Any? {
        (forwarded?.responds(to: selector) ?? false) ? forwarded : super.forwardingTarget(for: selector)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        received(response, task: dataTask, in: session)
        // An app's delegate without this method answers nothing: the default, allow, as Foundation would.
        let answered = (forwarded as? any URLSessionDataDelegate)?.urlSession?(
            session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
        if answered == nil { completionHandler(.allow) }
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received(data, task: dataTask, in: session)
        (forwarded as? any URLSessionDataDelegate)?.urlSession?(session, dataTask: dataTask, didReceive: data)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        collected(start: metrics.taskInterval.start, task: task, in: session)
        (forwarded as? any URLSessionTaskDelegate)?.urlSession?(session, task: task, didFinishCollecting: metrics)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        completed(task, error: error, in: session)
        (forwarded as? any URLSessionTaskDelegate)?.urlSession?(session, task: task, didCompleteWithError: error)
    }
}

#endif
