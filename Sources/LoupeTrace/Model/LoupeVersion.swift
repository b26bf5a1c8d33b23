/// The version of Loupe that wrote a recording or speaks on a link: HAR's `creator.version` and the link's hello
/// carry it, so a reader can tell which Loupe made what it reads.
public enum LoupeVersion {
    /// This build's version.
    public static let current = "0.1.0"
}
