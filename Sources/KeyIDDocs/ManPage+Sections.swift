import KeyIDKit

/// The manual page's sections of prose: output, the session bus and other users, duplicates.
extension ManPage {
    static func output() -> [String] {
        [
            ".SH OUTPUT",
            prose(
                "Output is part of the result: when standard output cannot be written (a full disk, an I/O error), keyid exits 8 with one line on standard error, which says when the run had already stored or replaced an ID. A reader that went away ends keyid quietly by SIGPIPE (status 141 in a shell), even when SIGPIPE is ignored. Standard input, output or error closed at start is opened on /dev/null first."
            ),
            ".PP",
            prose(
                "Names and labels are shown with control characters, bidi controls, line and paragraph separators, other format characters and spaces other than the plain one written as \\u{...} escapes, in messages, the list table and doctor; JSON writes them as \\u escapes. The list table aligns by display width."
            ),
        ]
    }

    static func provisioning() -> [String] {
        [
            ".SH SESSION BUS, OTHER USERS AND TEMPORARY KEYRINGS",
            prose(
                "keyid finds the session bus itself: DBUS_SESSION_BUS_ADDRESS when it is set, else $XDG_RUNTIME_DIR/bus, else /run/user/UID/bus, each only when it is a socket owned by the user. It talks to the Secret Service through libsecret, on a D-Bus connection (GDBus) of its own to the address it found, and never asks GLib to find a bus. So a cron job, an ssh login or a shell started with env -i reaches the Secret Service of the user's running session. keyid never starts a bus or a keyring: with DISPLAY set and no bus it does not let GLib autolaunch one (an address that would, autolaunch:, is refused), and when no bus is found it exits 5 within a second, naming the paths it tried. A session bus that can start a provider on demand (gnome-keyring installs a D-Bus activation file for org.freedesktop.secrets) starts it on keyid's first call, as it does for secret-tool. doctor shows the address it used and where it came from."
            ),
            ".PP",
            prose(
                "--user NAME (or KEYID_USER) lets root act for a user, as provisioning tools (Ansible with become, cloud-init) run: before keyid opens the bus, the lock or any file, it takes the user's supplementary groups, group ID and user ID for good and checks that root cannot be regained, then uses the user's home, /run/user/UID and its bus, and ignores root's DBUS_SESSION_BUS_ADDRESS and XDG directories. Files the file backend writes belong to the user. Anyone may name themselves; naming someone else without being root, or a user that does not exist, is a usage error (exit 2) and nothing is touched. The user's bus exists only while they have a session: loginctl enable-linger NAME keeps one."
            ),
            ".PP",
            prose(
                "gnome-keyring's session collection lives only in memory. When the collection an ID would be written to is such a temporary keyring (for example when the default alias points at it, as on WSL and minimal sessions), create, get --create and rotate exit 5 and say how to fix it, since the ID would be lost at logout and the next login would silently get a new one; reading an ID already kept there works, with a warning, and doctor fails on it. --collection NAME (or KEYID_COLLECTION) chooses the keyring to search and store in, by alias (default, login), by the last part of its object path, or by label; an unknown name is exit 5, listing the keyrings there are."
            ),
        ]
    }

    static func duplicates() -> [String] {
        [
            ".SH DUPLICATES",
            prose(
                "Several items can match one service and account: other tools may create them, and they may lie in different collections. keyid then uses the item created first. Items created in the same second are ordered by their D-Bus object path, comparing a trailing item number as a number, so that .../login/9 comes before .../login/10. The order in which the Secret Service returns items is never used, and keyid warns on standard error when it finds duplicates."
            ),
            ".PP",
            prose(
                "rotate writes the new ID into that item and removes the others, leaving exactly one; delete removes them all, leaving none."
            ),
        ]
    }
}
