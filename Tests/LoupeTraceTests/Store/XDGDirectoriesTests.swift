@testable import LoupeTrace
import Testing

@Suite("XDG directories")
struct XDGDirectoriesTests {
    @Test("absolute XDG variables win; empty or relative ones fall back under HOME")
    func bases() {
        let home = ["HOME": "/home/ada"]
        #expect(XDGDirectories.stateHome(environment: home) == "/home/ada/.local/state")
        #expect(XDGDirectories.configHome(environment: home) == "/home/ada/.config")
        #expect(XDGDirectories.stateHome(environment: home.merging(["XDG_STATE_HOME": "/s"]) { $1 }) == "/s")
        #expect(XDGDirectories.configHome(environment: home.merging(["XDG_CONFIG_HOME": "/c/"]) { $1 }) == "/c/")
        #expect(XDGDirectories.configHome(environment: home.merging(["XDG_CONFIG_HOME": ""]) { $1 }) == "/home/ada/.config")
        #expect(XDGDirectories.stateHome(environment: home.merging(["XDG_STATE_HOME": "s"]) { $1 }) == "/home/ada/.local/state")
        #expect(XDGDirectories.stateHome(environment: ["HOME": "/"]) == "/.local/state")
        #expect(XDGDirectories.join("/c/", "loupe") == "/c/loupe")
        #expect(XDGDirectories.join("/c", "loupe") == "/c/loupe")
    }
}
