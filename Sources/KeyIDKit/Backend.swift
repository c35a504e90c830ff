/// Where keyid keeps IDs (`--backend`).
public enum Backend: String, CaseIterable, Sendable {
    /// The freedesktop Secret Service, over D-Bus (the default).
    case secretService = "secret-service"
    /// Files under `$XDG_STATE_HOME/keyid` (else `/var/lib/keyid` for root, else
    /// `~/.local/state/keyid`), for machines
    /// without a Secret Service. Only ever used when asked for.
    case file
}

/// What `get` does when the stored ID was bound to another machine (`--on-clone`).
public enum ClonePolicy: String, CaseIterable, Sendable {
    /// Print the ID and a warning on standard error.
    case warn
    /// Print nothing and exit 9.
    case fail
    /// Replace the ID with a new one, bound to this machine, and print that.
    case rotate
}
