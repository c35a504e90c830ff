/// What a read does when the stored ID was bound to another machine (a cloned disk, a restored
/// home directory): `keyid get --on-clone`, and ``DeviceIDs/Options/onClone``.
public enum ClonePolicy: String, CaseIterable, Sendable {
    /// Keep the ID and warn: the library returns ``DeviceIDs/Warning/storedOnAnotherMachine``,
    /// the command prints the ID and a warning on standard error.
    case warn
    /// Refuse it: ``KeyIDError/cloned(_:)`` (the command prints nothing and exits 9).
    case fail
    /// Replace the ID with a new one, bound to this machine, and return (print) that.
    case rotate
}
