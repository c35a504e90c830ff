import Foundation

/// Command lines of desktop entries and systemd units, split into the argv that a desktop or
/// systemd executes without a shell. Only what the recipes need is read; anything else is an
/// ``ExecLine/Unsupported`` error, never a guess.
enum ExecLine {
    /// A command line that uses what these readers do not implement, or breaks the rules.
    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    /// The characters the Desktop Entry Specification reserves: an argument holding one of
    /// them must be quoted.
    static let reserved = Set(" \t\n\"'\\><~|&;$*?#()`")

    /// The argv of a desktop entry's `Exec` value, written as in the file, as the Desktop
    /// Entry Specification 1.5 reads it for a launch with no files or URLs: first the escapes
    /// of a string value (`\s`, `\n`, `\t`, `\r`, `\\`), then arguments separated by spaces,
    /// each either plain or quoted in full with double quotes, inside which a backslash
    /// escapes `"`, `` ` ``, `$` and `\`; `%%` is `%`, and `%f`, `%F`, `%u`, `%U` vanish.
    static func desktopEntry(_ raw: String) throws(Unsupported) -> [String] {
        var value = ""
        var characters = raw.makeIterator()
        while let character = characters.next() {
            guard character == "\\" else {
                value.append(character)
                continue
            }
            switch characters.next() {
            case "s": value.append(" ")
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "\\": value.append("\\")
            case let other: throw Unsupported(description: "invalid string escape \\\(other.map(String.init) ?? "")")
            }
        }

        var arguments: [String] = []
        var rest = Substring(value)
        while let first = rest.first {
            if first == " " {
                rest.removeFirst()
            } else if first == "\"" {
                rest.removeFirst()
                var argument = ""
                while true {
                    guard let character = rest.popFirst() else { throw Unsupported(description: "unclosed quote") }
                    if character == "\"" { break }
                    if character == "\\" {
                        guard let escaped = rest.popFirst(), "\"`$\\".contains(escaped) else {
                            throw Unsupported(description: "a backslash in quotes escapes only \", `, $ and \\")
                        }
                        argument.append(escaped)
                    } else if "`$%".contains(character) {
                        throw Unsupported(description: "\(character) in a quoted argument")
                    } else {
                        argument.append(character)
                    }
                }
                guard rest.isEmpty || rest.first == " " else {
                    throw Unsupported(description: "a quoted argument must be quoted in full")
                }
                arguments.append(argument)
            } else {
                let word = rest.prefix { $0 != " " }
                rest = rest.dropFirst(word.count)
                var argument = ""
                var characters = word.makeIterator()
                while let character = characters.next() {
                    if character == "%" {
                        switch characters.next() {
                        case "%": argument.append("%")
                        case "f", "F", "u", "U": break
                        case let code: throw Unsupported(description: "field code %\(code.map(String.init) ?? "")")
                        }
                    } else if reserved.contains(character) {
                        throw Unsupported(description: "reserved character \(character) outside quotes")
                    } else {
                        argument.append(character)
                    }
                }
                if !argument.isEmpty { arguments.append(argument) }
            }
        }
        return arguments
    }

    /// The argv of a systemd unit's `ExecStart=` value, as systemd.service(5) describes it
    /// under "Command lines": words separated by white space, single or double quotes, outside
    /// them a backslash before `\`, `"`, `'` or a space; `%%` is `%` and `$$` is `$`. Specifiers,
    /// `${NAME}`, a word `$NAME`, `;` between commands and the prefixes `-@:+!` are not read.
    static func systemd(_ raw: String) throws(Unsupported) -> [String] {
        if let first = raw.first, "-@:+!".contains(first) {
            throw Unsupported(description: "command prefix \(first)")
        }
        var arguments: [String] = []
        var rest = Substring(raw)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            guard !rest.isEmpty else { break }
            var word = ""
            var quote: Character?
            while let character = rest.first, quote != nil || (character != " " && character != "\t") {
                rest.removeFirst()
                if character == quote {
                    quote = nil
                } else if quote == nil && (character == "\"" || character == "'") {
                    quote = character
                } else if character == "\\" {
                    guard quote == nil, let escaped = rest.popFirst(), "\\\"' ".contains(escaped) else {
                        throw Unsupported(
                            description: "backslash other than \\\\, \\\", \\' or a space, outside quotes")
                    }
                    word.append(escaped)
                } else {
                    word.append(character)
                }
            }
            guard quote == nil else { throw Unsupported(description: "unclosed quote") }
            arguments.append(try substituted(word))
        }
        guard !arguments.contains(";") else { throw Unsupported(description: "several commands") }
        return arguments
    }

    /// One systemd word after its specifiers and environment variables.
    private static func substituted(_ word: String) throws(Unsupported) -> String {
        if word.hasPrefix("$"), let next = word.dropFirst().first, next != "$", next != "{" {
            throw Unsupported(description: "environment variable word \(word)")
        }
        let characters = Array(word)
        var result = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            index += 1
            switch (character, next) {
            case ("%", "%"), ("$", "$"):
                result.append(character)
                index += 1
            case ("%", _): throw Unsupported(description: "specifier %\(next.map(String.init) ?? "")")
            case ("$", "{"): throw Unsupported(description: "environment variable ${...}")
            default: result.append(character)
            }
        }
        return result
    }

    /// The program an argv runs: its first word when that is a path, else the first
    /// executable of that name in the directories of `path`, as `execvp` finds it.
    static func program(_ name: String, path: String) -> String? {
        if name.contains("/") { return name }
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
