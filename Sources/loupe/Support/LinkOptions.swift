import ArgumentParser
import Foundation
import Loupe
import LoupeLink
import LoupeQuery
import LoupeRules
import LoupeTrace

/// `--link LINK` (or `LOUPE_LINK`) for the commands that record: the app's side of the live link.
enum LinkOption {
    /// Reads a link string; the reason is the one line after `--link: `.
    static func parse(_ text: String) throws(LinkAddressError) -> LinkAddress {
        try LinkAddress(parsing: text)
    }

    /// The link from `--link`, else from `LOUPE_LINK`, started; nil when neither is given.
    static func start(_ option: LinkAddress?, appName: String, bufferBytes: Int? = nil,
                      environment: [String: String] = ProcessInfo.processInfo.environment,
                      rules: RuleBook? = nil) throws -> LoupeLink? {
        let address: LinkAddress
        if let option {
            address = option
        } else {
            do {
                guard let fromEnvironment = try LinkAddress.fromEnvironment(environment) else { return nil }
                address = fromEnvironment
            } catch {
                throw CommandFailure.badInput("\(LinkAddress.environmentVariable): \(error)")
            }
        }
        do {
            var configuration = LoupeLink.Configuration(appName: appName)
            if let bufferBytes { configuration = LoupeLink.Configuration(bufferBytes: bufferBytes, appName: appName) }
            configuration.rules = rules
            return try LoupeLink(address, configuration: configuration)
        } catch {
            throw CommandFailure.badInput("cannot start the link to \(address.redacted): \(error)")
        }
    }

    /// One stderr line on what the link delivered, after ``TraceForwarding/finish()``.
    static func report(_ link: LoupeLink?) {
        guard let link else { return }
        let counts = link.counts
        var line = "loupe: link to \(link.address.redacted): \(counts.acknowledged) of \(Quantity.count(counts.sent, "exchange")) "
            + "delivered, \(counts.dropped) dropped"
        if counts.pending > 0 { line += ", \(counts.pending) undelivered at exit" }
        StandardStreams.error(line + "\n")
    }
}

/// `[ADDR:]PORT` for `loupe listen` and `loupe tui --listen`.
enum ListenOption {
    static func parse(_ text: String) throws(ListenAddressError) -> ListenAddress {
        try ListenAddress(parsing: text)
    }

    /// The listener's identity from Loupe's state folder, made on first use.
    static func identity() throws -> LinkIdentity {
        do {
            return try LinkIdentity.loadOrCreate()
        } catch {
            throw CommandFailure.badInput(error.description)
        }
    }

    /// Starts a listener writing into `store`; a port in use or an address that cannot be bound is one line.
    static func start(at address: ListenAddress, store: any TraceStore, insecureLoopback: Bool = false,
                      onStored: (@Sendable (Int) -> Void)? = nil, events: @escaping @Sendable (LinkListenerEvent) -> Void) async throws -> LinkListener {
        // Checked before anything is made or bound: plain TCP on another address is one line, exit 2.
        if insecureLoopback, !LinkAddress.isLoopback(address.host) {
            throw CommandFailure.badInput(LinkListenerError.insecureNotLoopback(address.host).description)
        }
        let identity = try identity()
        var settings = LinkListener.Settings()
        settings.insecureLoopback = insecureLoopback
        settings.onStored = onStored
        do {
            return try await LinkListener.start(at: address, identity: identity, store: store, settings: settings,
                                                events: events)
        } catch {
            if BindFailure.isAddressInUse(error) { throw CommandFailure.badInput("port \(address.port) is in use") }
            throw CommandFailure.badInput("cannot listen on \(address): \(error)")
        }
    }

    /// The closing line: what the listener took in.
    static func summary(_ counts: LinkListener.Counts) -> String {
        "received \(Quantity.count(counts.stored, "exchange")) from \(Quantity.count(counts.linked, "link")); apps reported "
            + "\(Quantity.count(counts.droppedByApps)) dropped; refused \(Quantity.count(counts.refused, "connection"))"
    }
}
