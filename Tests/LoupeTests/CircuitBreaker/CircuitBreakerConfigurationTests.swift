import HTTPTypes
import Loupe
import Testing

@Suite struct CircuitBreakerConfigurationTests {
    struct Unexpected: Error {}

    @Test(arguments: [(200, CallOutcome.success), (304, .success), (404, .success), (429, .success),
                      (500, .failure), (503, .failure), (599, .failure)])
    func statusesAreClassified(status: Int, expected: CallOutcome) {
        let result = CircuitCallResult.response(HTTPResponse(status: .init(code: status)))
        #expect(CircuitBreakerConfiguration.defaultClassification(result) == expected)
    }

    @Test func errorsAreClassified() {
        let classify = CircuitBreakerConfiguration.defaultClassification
        #expect(classify(.error(TransportError(.connectFailed, "refused"))) == .failure)
        #expect(classify(.error(TransportError(.timedOut, "slow"))) == .failure)
        #expect(classify(.error(TransportError(.tls, "bad pin"))) == .failure)
        #expect(classify(.error(Unexpected())) == .failure)
        #expect(classify(.error(TransportError(.cancelled, "gone"))) == .ignored)
        #expect(classify(.error(CancellationError())) == .ignored)
        #expect(classify(.error(CircuitOpenError(key: "inner", state: .open, retryAfter: .seconds(1)))) == .ignored)
    }

    @Test func rejectionsDescribeThemselves() {
        #expect(CircuitOpenError(key: "h", state: .open, retryAfter: .milliseconds(1_500)).description == "circuit h is open; next probe in 1.50 s")
        #expect(CircuitOpenError(key: "h", state: .open, retryAfter: .milliseconds(250)).description == "circuit h is open; next probe in 250 ms")
        #expect(CircuitOpenError(key: "h", state: .forcedOpen, retryAfter: nil).description == "circuit h is forced open")
        #expect(CircuitOpenError(key: "h", state: .halfOpen, retryAfter: nil).description == "circuit h is half-open and all its probes are in flight")
    }
}
