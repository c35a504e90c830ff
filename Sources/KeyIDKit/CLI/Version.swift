/// keyid's version: the one place it is written down.
package enum KeyIDVersion {
    package static let current = "0.3.0"
}
