import LoupeTrace

/// One connection on the listener, as a value: it reads frames and says what to do. The channel handler around it
/// only carries the actions out.
struct LinkSessionMachine: Sendable {
    enum State: Sendable, Equatable {
        case awaitingHello
        case linked(LinkHello)
        case closed
    }

    enum Action: Sendable, Equatable {
        /// Nothing to do.
        case none
        /// A good hello: answer with a welcome; the app is now a source.
        case welcome(LinkHello)
        /// Store this exchange (and ack it once stored): numbered by the store, its source the app linked.
        case store(TraceExchange)
        /// The app reports this many drops in all.
        case drops(LinkCount)
        /// Send this refusal, close, and print it.
        case refuse(String)
        /// Count and print this refusal, and close without a word: the peer never proved the secret, and may not
        /// even have finished its TLS handshake.
        case drop(String)
        /// Close without answering (the peer refused us, or is gone), printing this line.
        case close(String)
        /// Keep the app's latest rules and held requests (only from an app whose hello said it takes rules).
        case ruleState(LinkRuleState)
    }

    private let secret: [UInt8]
    /// The most body bytes stored per request or response: the recorder's cap, whatever the app sent.
    private let bodyCap: Int
    private(set) var state: State = .awaitingHello
    /// The linked app as each of its exchanges records it (made once, not per exchange).
    private var source: TraceSource?

    init(secret: String, bodyCap: Int = LinkListener.Settings.defaultBodyCap) {
        self.secret = Array(secret.utf8)
        self.bodyCap = bodyCap
    }

    mutating func received(_ frame: LinkFrame) -> Action {
        switch (state, frame) {
        case (.closed, _):
            return .none
        case (.awaitingHello, .hello(let hello)):
            guard hello.protocol == LinkProtocol.version else {
                return refuse("protocol \(hello.protocol), this is \(LinkProtocol.version)")
            }
            guard LinkIdentity.sameBytes(Array(hello.secret.utf8), secret) else { return refuse("wrong secret") }
            var shown = hello
            shown.secret = ""
            state = .linked(shown)
            source = TraceSource(app: shown.app, host: shown.host, pid: shown.pid)
            return .welcome(shown)
        case (.awaitingHello, .refuse(let reason)):
            state = .closed
            return .close("the app refused: \(reason)")
        case (.awaitingHello, let other):
            return refuse(LinkProtocolError.unexpected(other.type, expected: "a hello").description)
        case (.linked, .exchange(var exchange)):
            // Whatever the app says of these, the store numbers it and the hello names its source.
            exchange.sequence = nil
            exchange.source = source
            // A frame holds up to 8 MiB: a body is kept as the recorder would have kept it, not as large as that.
            exchange.requestBody = exchange.requestBody?.capped(at: bodyCap)
            exchange.responseBody = exchange.responseBody?.capped(at: bodyCap)
            return .store(exchange)
        case (.linked, .drops(let count)):
            return .drops(count)
        case (.linked(let app), .ruleState(let ruleState)) where app.rules == true:
            return .ruleState(ruleState)
        case (.linked, .refuse(let reason)):
            state = .closed
            return .close("the app closed the link: \(reason)")
        case (.linked, let other):
            return refuse(LinkProtocolError.wrongDirection(other.type).description)
        }
    }

    /// The peer's bytes could not be read as frames.
    mutating func failed(_ error: LinkProtocolError) -> Action {
        guard state != .closed else { return .none }
        return refuse(error.description)
    }

    /// The hello deadline passed: a peer still without a hello is dropped (once: the close that follows may raise
    /// a TLS error of its own, which ``transportFailed(beforeHello:afterHello:)`` then ignores).
    mutating func helloDeadlinePassed(_ limit: Duration) -> Action {
        guard case .awaitingHello = state else { return .none }
        state = .closed
        return .drop("no hello within \(limit) (a TLS handshake never finished, or a silent peer)")
    }

    /// The listener let another connection take this one's place while it had not said its hello
    /// (``LinkAdmission``).
    mutating func evicted(_ reason: String) -> Action {
        guard case .awaitingHello = state else { return .none }
        state = .closed
        return .drop(reason)
    }

    /// TLS or the socket failed: `beforeHello` says why to a peer that never linked, `afterHello` to a linked app
    /// (the same error reads differently: an unclean close before the hello is a handshake cut short, after it an
    /// app that went away).
    mutating func transportFailed(beforeHello: String, afterHello: String) -> Action {
        switch state {
        case .closed: return .none
        case .awaitingHello:
            state = .closed
            return .drop(beforeHello)
        case .linked:
            return .close(afterHello)
        }
    }

    private mutating func refuse(_ reason: String) -> Action {
        state = .closed
        return .refuse(reason)
    }
}

extension LinkFrame {
    var type: LinkMessageType {
        switch self {
        case .hello: .hello
        case .exchange: .exchange
        case .drops: .drops
        case .welcome: .welcome
        case .ack: .ack
        case .refuse: .refuse
        case .ruleState: .ruleState
        case .rules: .rules
        }
    }
}
