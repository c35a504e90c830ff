/// keyid's version: the one place it is written down.
public enum KeyIDVersion {
    public static let current = "0.1.0"
}
