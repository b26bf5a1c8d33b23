/// Which screen the inspector shows under the title bar, with that screen's state (the renderers are `ListView`
/// and `DetailView`).
package enum InspectorScreenState: Hashable, Sendable {
    /// The exchange list.
    case list
    /// One exchange in full.
    case detail(DetailState)
}
