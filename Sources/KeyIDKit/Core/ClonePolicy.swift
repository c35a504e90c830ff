/// What `get` does when the stored ID was bound to another machine (`--on-clone`).
public enum ClonePolicy: String, CaseIterable, Sendable {
    /// Print the ID and a warning on standard error.
    case warn
    /// Print nothing and exit 9.
    case fail
    /// Replace the ID with a new one, bound to this machine, and print that.
    case rotate
}
