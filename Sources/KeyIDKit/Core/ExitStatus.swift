/// The exit statuses of keyid, the one list the help, the manual page and the README show.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    case notFound = 1
    case usage = 2
    case alreadyExists = 3
    case locked = 4
    case unavailable = 5
    case timedOut = 6
    case invalidStoredValue = 7
    case failure = 8
    case cloned = 9
}
