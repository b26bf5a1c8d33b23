import LoupeTrace
import Testing

@Suite("StoreLocation")
struct StoreLocationTests {
    @Test("LOUPE_STORE wins, then XDG_STATE_HOME, then ~/.local/state")
    func precedence() {
        let home = ["HOME": "/home/ada"]
        #expect(StoreLocation.defaultPath(environment: home) == "/home/ada/.local/state/loupe/traces.sqlite")
        #expect(StoreLocation.defaultPath(environment: home.merging(["XDG_STATE_HOME": "/var/state/"]) { $1 })
            == "/var/state/loupe/traces.sqlite")
        #expect(StoreLocation.defaultPath(
            environment: home.merging(["XDG_STATE_HOME": "/var/state", "LOUPE_STORE": "/tmp/t.sqlite"]) { $1 })
            == "/tmp/t.sqlite")
    }

    @Test("empty variables and a relative XDG_STATE_HOME are ignored")
    func ignoredValues() {
        let environment = ["HOME": "/home/ada", "LOUPE_STORE": "", "XDG_STATE_HOME": "relative/state"]
        #expect(StoreLocation.defaultPath(environment: environment) == "/home/ada/.local/state/loupe/traces.sqlite")
    }
}
