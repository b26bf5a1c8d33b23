/// Which screen the inspector shows under the title bar.
public enum InspectorView: Hashable, Sendable {
    /// The exchange list.
    case list
    /// One exchange in full.
    case detail(DetailState)
}
