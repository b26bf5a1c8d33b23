import Foundation
@testable import LoupeCompare
import Testing

@Suite("Response shapes")
struct ShapeTests {
    static func shape(_ bodies: [String]) -> ResponseShape {
        var shape = ResponseShape()
        for body in bodies { shape.learn(Data(body.utf8)) }
        return shape
    }

    @Test("an optional field is not drift; a field always there and now gone is")
    func optional() {
        let a = Self.shape((0..<200).map { $0 % 3 == 0 ? #"{"id":\#($0),"note":"x","user":{"name":"a"}}"# : #"{"id":\#($0),"user":{"name":"a"}}"# })
        let sparse = Self.shape((0..<5).map { #"{"id":\#($0),"user":{"name":"a"}}"# })
        // "note" in a third of A: five of B's without it are likely (0.67^5 = 0.13).
        #expect(ShapeDrift.drifts(from: a, to: sparse, alpha: 0.01).isEmpty)
        let many = Self.shape((0..<200).map { #"{"id":\#($0),"user":{"name":"a"}}"# })
        #expect(ShapeDrift.drifts(from: a, to: many, alpha: 0.01).map(\.description) == ["removed $.note"])
        let noUser = Self.shape((0..<20).map { #"{"id":\#($0),"note":"x"}"# })
        // The subtree is named once, at its top.
        #expect(ShapeDrift.drifts(from: a, to: noUser, alpha: 0.01).map(\.description) == ["removed $.user"])
    }

    @Test("a field turned null, a changed type, an added field, and arrays folded")
    func kinds() {
        let a = Self.shape((0..<50).map { #"{"id":\#($0),"email":"e@x","items":[{"price":1},{"price":2}],"user":{"name":"n"}}"# })
        let b = Self.shape((0..<50).map { #"{"id":"\#($0)","email":null,"items":[{"price":1}],"user":null,"extra":true}"# })
        let drifts = ShapeDrift.drifts(from: a, to: b, alpha: 0.01)
        #expect(drifts.map(\.description) == [
            "changed type $.id: number → string", "now null $.email", "now null $.user", "added $.extra",
        ])
        #expect(a.paths["$.items[*].price"]?.documents == 50)
        #expect(a.paths["$.items[*].price"]?.kinds[ResponseShape.Kind.number.rawValue] == 100)
    }

    @Test("paths are bounded and odd keys quoted")
    func bounded() {
        let wide = "{" + (0..<600).map { #""k\#($0)":1"# }.joined(separator: ",") + #","odd key":1}"#
        let shape = Self.shape([wide])
        #expect(shape.paths.count == ResponseShape.maximumPaths)
        #expect(shape.pathsLeftOut == 602 - ResponseShape.maximumPaths)
        #expect(Self.shape([#"{"odd key":1}"#]).paths["$['odd key']"] != nil)
        #expect(Self.shape(["not json", "[1,"]).documents == 0)
    }
}
