/// Where keyid keeps IDs (`--backend`).
public enum Backend: String, CaseIterable, Sendable {
    /// The freedesktop Secret Service, over D-Bus (the default).
    case secretService = "secret-service"
    /// Files under `$XDG_STATE_HOME/keyid` (else `/var/lib/keyid` for root, else
    /// `~/.local/state/keyid`), for machines without a Secret Service. Only ever used when
    /// asked for.
    case file
}
