extension ExitStatus {
    /// What the status means, in one line.
    package var meaning: String {
        switch self {
        case .success: return "success"
        case .notFound: return "no ID is stored"
        case .usage: return "usage error: unknown option, missing or invalid argument, invalid name or value"
        case .alreadyExists: return "create: an ID is already stored"
        case .locked: return "the keyring is locked and was not unlocked"
        case .unavailable:
            return
                "no Secret Service: no session bus, no provider, no such keyring, or only a temporary one to write to"
        case .timedOut: return "timed out"
        case .invalidStoredValue: return "the stored value is not a valid ID"
        case .failure:
            return
                "any other failure of the keyring, the lock file, the file backend, the machine ID, acting as another user, or writing the output"
        case .cloned: return "--on-clone fail: the ID was stored on another machine"
        }
    }
}
