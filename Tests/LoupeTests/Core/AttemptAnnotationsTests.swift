import Loupe
import Testing

@Suite struct AttemptAnnotationsTests {
    /// Middleware add their notes through `note`: the first one makes room for a stack's few (DECISIONS 42), and
    /// a note written again keeps the last value, as the dictionary's subscript does.
    @Test func theFirstNoteMakesRoomAndALaterOneReplacesItsValue() {
        var annotations = AttemptAnnotations()
        #expect(annotations.extra.capacity == 0)
        annotations.note("cache", "miss")
        #expect(annotations.extra.capacity >= 4)
        let capacity = annotations.extra.capacity
        annotations.note("auth.generation", "1")
        annotations.note("circuit.key", "api.example.com")
        annotations.note("cache", "revalidate")
        #expect(annotations.extra == ["cache": "revalidate", "auth.generation": "1", "circuit.key": "api.example.com"])
        #expect(annotations.extra.capacity == capacity)
    }
}
