import KeyIDKit

/// The manual page `keyid.1` (roff, man(7) macros), rendered from ``CommandTable``.
public enum ManPage {
    /// The date in the page's title line. A constant, so that the page is the same on every run.
    static let date = "2026-12-01"

    /// An ID used in the examples.
    static let sampleID = DeviceID("0f8fad5b-d9cb-469f-a165-70867728950e")!

    /// The whole page.
    public static func render() -> String {
        var lines = [
            ".\\\" Generated from the command table by keyid-docs ('make docs'); do not edit.",
            ".TH KEYID 1 \(date) \(quoted("keyid \(KeyIDVersion.current)")) \(quoted("User Commands"))",
            ".ad l",
        ]
        lines += name() + synopsis() + description() + subcommands() + options() + environment()
        lines +=
            exitStatus() + output() + files() + provisioning() + jsonOutput() + duplicates() + examples() + seeAlso()
        return lines.joined(separator: "\n") + "\n"
    }

    static func name() -> [String] {
        [".SH NAME", "keyid \\- \(CommandTable.tagline)"]
    }

    static func synopsis() -> [String] {
        var lines = [".SH SYNOPSIS"]
        for spec in CommandTable.subcommands {
            lines += usage(spec)
        }
        lines += [".SY \(quoted("keyid help"))", ".RI [ subcommand ]", ".YS"]
        for option in CommandTable.globalOptions {
            lines += [".SY keyid", ".B \(code(option.flag))", ".YS"]
        }
        return lines
    }

    static func usage(_ spec: SubcommandSpec) -> [String] {
        var lines = [".SY \(quoted("keyid \(spec.name)"))"]
        for option in spec.options where option.option != .help {
            lines.append(".OP \(code(option.flag))" + (option.valueName.map { " " + quoted(code($0)) } ?? ""))
        }
        if let argument = spec.argument { lines.append(".I \(argument)") }
        return lines + [".YS"]
    }

    static func description() -> [String] {
        let key = try! ItemKey(service: ItemKey.defaultService, account: ItemKey.defaultAccount)
        let lookup = "secret-tool lookup service \(key.service) account \(key.account)"
        return [
            ".SH DESCRIPTION",
            ".B keyid",
            prose(
                "keeps one persistent device identifier, a version-4 UUID (random, or derived from the machine ID), for each pair of service and account attributes in the freedesktop Secret Service (for example gnome-keyring), much as an iOS application keeps a UUID in the Keychain so that it survives a reinstall. It is meant for shell users, provisioning scripts and desktop login sessions."
            ),
            ".PP",
            prose(
                "Items are looked up by exactly the attributes service and account, without a schema, as secret-tool(1) does. So"
            ),
            "\\fB\(code(lookup))\\fR",
            prose(
                "reads the ID that keyid stores by default, and keyid reads an ID that secret-tool store wrote. The service defaults to \(key.service) and the account to \(key.account)."
            ),
            ".PP",
            prose(
                "Standard output carries only the result: the ID, or one JSON object with --json. Every message goes to standard error. Each kind of failure has its own exit status (see EXIT STATUS), so that a script can tell a missing ID from a locked keyring, a missing Secret Service or a timeout. A read that failed or met a locked keyring is never reported as not found, and get --create never creates an ID after such a read."
            ),
            ".PP",
            prose(
                "keyid never hangs: every run ends within --timeout seconds, and --no-prompt fails at once instead of asking the keyring daemon to show an unlock dialog."
            ),
        ]
    }

    static func subcommands() -> [String] {
        var lines = [".SH SUBCOMMANDS"]
        for spec in CommandTable.subcommands {
            lines += [".SS \(spec.name)"] + usage(spec) + [".PP", prose(spec.discussion), ".PP", "Options:"]
            for option in spec.options {
                lines += [".TP", label(option), prose(option.summary(for: spec.subcommand))]
            }
            lines += [
                ".PP",
                "Environment: " + DisplayText.listed(spec.documentedVariables.map { "\\fB\($0.name)\\fR" }) + ".",
            ]
            if !spec.examples.isEmpty {
                lines += [".PP", spec.examples.count == 1 ? "Example:" : "Examples:"]
                for example in spec.examples {
                    lines += [".TP", "\\fB\(code(example.command))\\fR", prose(example.explanation)]
                }
            }
        }
        lines += [
            ".SS help",
            ".SY \(quoted("keyid help"))",
            ".RI [ subcommand ]",
            ".YS",
            ".PP",
            "Prints the help of",
            ".IR subcommand ,",
            "the same as",
            "\\fBkeyid\\fR \\fIsubcommand\\fR \\fB\\-\\-help\\fR,",
            "or without one the help of keyid, the same as",
            ".BR \"keyid \\-\\-help\" .",
        ]
        return lines
    }

    /// The OPTIONS section: every option, in the order of its declarations, as a whole.
    static func options() -> [String] {
        var lines = [".SH OPTIONS"]
        let rules = OptionRule.all
        for option in Option.allCases {
            let spec = option.spec
            lines += [".TP", label(spec), prose(spec.summary)]
            let users = CommandTable.subcommands.filter { spec.subcommands.contains($0.subcommand) }.map(\.name)
            var accepted = users.isEmpty ? "" : "Accepted by " + DisplayText.listed(users.map { "\\fB\($0)\\fR" })
            if spec.isGlobal {
                accepted += accepted.isEmpty ? "Accepted with or without a subcommand" : ", and without a subcommand"
            }
            lines += [".br", accepted + "."]
            if let variable = spec.variable?.rawValue {
                lines += [
                    ".br",
                    "When \\fB\(code(spec.flag))\\fR is not given, the value of \\fB\(variable)\\fR is used.",
                ]
            }
            if option == .timeout {
                lines += [
                    ".br",
                    "\\fI\(code(spec.valueName ?? ""))\\fR is a decimal number greater than 0 and at most \(Int(CommandTable.maximumTimeout)).",
                ]
            }
            lines += choices(spec)
            for sentence in rules.compactMap({ $0.sentence(for: option) }) {
                lines += [".br", prose(sentence)]
            }
        }
        return lines
    }

    /// The fixed values an option accepts, each described when a description is known.
    static func choices(_ spec: OptionSpec) -> [String] {
        guard !spec.choices.isEmpty else { return [] }
        let described = spec.choices.map { choice in
            (choice, spec.option == .format ? IDFormat(rawValue: choice)?.summary : nil)
        }
        if described.allSatisfy({ $0.1 == nil }) {
            let values = DisplayText.listed(spec.choices.map { "\\fB\(code($0))\\fR" })
            return [".br", (spec.choices.count == 1 ? "The only value accepted is " : "One of ") + values + "."]
        }
        var lines = [".br", "\\fI\(code(spec.valueName ?? ""))\\fR is one of:", ".RS"]
        for (choice, summary) in described {
            lines += [".TP", ".B \(code(choice))", prose(summary ?? "")]
        }
        return lines + [".RE"]
    }

    static func environment() -> [String] {
        var lines = [
            ".SH ENVIRONMENT",
            prose(
                "Each subcommand reads only the variables its subsection names: a KEYID_ variable for an option that a subcommand does not take is left alone, whatever its value. A bad value in one that it reads is exit status 2, naming the variable."
            ),
        ]
        for variable in CommandTable.documentedVariables {
            lines += [".TP", ".B \(variable.name)", prose(variable.summary)]
        }
        return lines
    }

    static func exitStatus() -> [String] {
        var lines = [".SH EXIT STATUS"]
        for status in CommandTable.exitStatuses {
            lines += [".TP", ".B \(status.code)", prose(status.meaning)]
        }
        return lines
    }

    static func files() -> [String] {
        [
            ".SH FILES",
            ".TP",
            ".I $XDG_RUNTIME_DIR/keyid/lock",
            prose(
                "The lock file. keyid holds an exclusive flock(2) on it while create, get --create, rotate or delete look an item up and change it, so that concurrent runs never interleave: get --create run in parallel prints one ID and stores one item. The directory is created with mode 0700 and the file with mode 0600; keyid refuses a symbolic link or a file that belongs to another user."
            ),
            ".TP",
            ".I $XDG_CACHE_HOME/keyid/lock",
            prose("The lock file when XDG_RUNTIME_DIR is unset or not an absolute path."),
            ".TP",
            ".I \(code("~/.cache/keyid/lock"))",
            prose("The lock file when XDG_CACHE_HOME is unset or not an absolute path too."),
            ".TP",
            ".I /etc/machine-id",
            prose(
                "Read (never printed or stored) to derive IDs for derive and --derive, and to bind each stored ID to this machine: keyid stores a keyed hash of it in the item's keyid-machine attribute, and get warns (or, with --on-clone, fails or rotates) when an ID was stored on another machine, as after cloning a disk image. KEYID_MACHINE_ID_FILE names another file."
            ),
            ".TP",
            ".I \(MachineSignal.cloudInstance.path)",
            prose(
                "cloud-init's instance ID, when readable: keyid stores a hash of it keyed by the machine ID (keyid-instance), so that copies of one image that keep its machine ID are still told apart (differs: instance-id)."
            ),
            ".TP",
            ".I \(MachineSignal.productUUID.path)",
            prose(
                "The product UUID the firmware or hypervisor gives the machine, readable by root: hashed and compared in the same way (keyid-product; differs: product-uuid). A signal that cannot be read now is not compared; only one that differs makes a clone."
            ),
            ".TP",
            ".I $XDG_STATE_HOME/keyid/",
            prose(
                "With --backend file, one file per service and account, mode 0600 in a 0700 directory, replaced atomically. The directory is $KEYID_FILE_DIR when set, else $XDG_STATE_HOME/keyid, else \(FileStore.rootDirectory) for root, else ~/.local/state/keyid. keyid never falls back to it on its own."
            ),
        ]
    }

    static func jsonOutput() -> [String] {
        let key = try! ItemKey(service: ItemKey.defaultService, account: ItemKey.defaultAccount)
        let example = JSONRecord(
            id: sampleID.uuidString, service: key.service, account: key.account, label: key.label,
            created: 1_795_962_502, modified: 1_795_962_502
        ).text
        var lines = [
            ".SH JSON OUTPUT",
            prose(
                "With --json, keyid prints one line holding one JSON object, with these keys in this order (\(JSONKey.occasional.map(\.rawValue).joined(separator: ", ")) only where said; keys are only ever added):"
            ),
        ]
        for key in JSONKey.ofAnID {
            lines += [".TP", ".B \(key.rawValue)", prose(key.meaning)]
        }
        lines += [
            ".PP",
            prose(
                "Times are ISO 8601 in UTC, to the second, such as 2026-11-29T14:28:22Z. For example, keyid get --json prints"
            ),
            ".PP",
            ".RS 4",
            ".EX",
            literal(example),
            ".EE",
            ".RE",
        ]
        return lines
    }

    static func examples() -> [String] {
        let id = sampleID
        let other = try! ItemKey(service: "com.example.agent", account: ItemKey.defaultAccount)
        let shell = [
            "$ keyid get --create",
            id.uuidString,
            "$ keyid get --format urn",
            id.formatted(.urn),
            "$ keyid get --service com.example.agent",
            "keyid: " + CommandLineText.line(KeyIDError.notFound(other)),
            "$ echo $?",
            "1",
        ]
        let provisioning = [
            "#!/bin/sh",
            "id=$(keyid get --create --no-prompt --timeout 5 --service com.example.fleet)",
            "case $? in",
            "    0) printf 'registering %s\\n' \"$id\" ;;",
            "    4) echo 'the keyring is locked: log in to the desktop first' >&2; exit 1 ;;",
            "    5) echo 'no Secret Service on this machine' >&2; exit 1 ;;",
            "    6) echo 'the keyring did not answer in time' >&2; exit 1 ;;",
            "    *) exit 1 ;;",
            "esac",
        ]
        let login = [
            "if DEVICE_ID=$(keyid get --create --timeout 10); then",
            "    export DEVICE_ID",
            "fi",
        ]
        return [
            ".SH EXAMPLES",
            prose("A shell user prints the ID, creating it on first use, then other forms of it:"),
        ] + block(shell) + [
            ".PP",
            prose(
                "A provisioning script must not hang on a locked keyring, and tells the failures apart by exit status:"
            ),
        ] + block(provisioning) + [
            ".PP",
            prose(
                "A desktop login session, where the keyring is unlocked at login, exports the ID to the programs it starts, for example from ~/.profile:"
            ),
        ] + block(login)
    }

    static func seeAlso() -> [String] {
        [".SH SEE ALSO", ".BR secret\\-tool (1),", ".BR gnome\\-keyring\\-daemon (1),", ".BR machine\\-id (5)"]
    }

    // MARK: - roff

    /// A label for an option list: the flag in bold and its value name in italics.
    static func label(_ spec: OptionSpec) -> String {
        let flag = spec.option.spellings.map { "\\fB\(code($0))\\fR" }.joined(separator: ", ")
        return flag + (spec.valueName.map { " \\fI\(code($0))\\fR" } ?? "")
    }

    /// Indented lines set as they are, in a fixed-width font.
    static func block(_ lines: [String]) -> [String] {
        [".PP", ".RS 4", ".EX"] + lines.map(literal) + [".EE", ".RE"]
    }

    /// One line of literal text: every hyphen a minus sign, safe at the start of a line.
    static func literal(_ text: String) -> String {
        lineStart(code(text))
    }

    /// Text in which every backslash is escaped and every hyphen is a minus sign.
    static func code(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(character)
            }
        }
        return out
    }

    /// Running text, one sentence a line. Options (`--json`) are set in bold with minus signs,
    /// a lone `-` becomes a minus sign, other hyphens stay hyphens.
    static func prose(_ text: String) -> String {
        let characters = Array(text)
        var out = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let atWordStart = index == 0 || " ([".contains(characters[index - 1])
            if character == "-", atWordStart {
                var end = index
                while end < characters.count, characters[end] == "-" || characters[end].isLetter {
                    end += 1
                }
                let word = String(characters[index..<end])
                out += word.hasPrefix("--") && word.count > 2 ? "\\fB\(code(word))\\fR" : code(word)
                index = end
                continue
            }
            if character == ".", index + 1 < characters.count, characters[index + 1] == " " {
                out += ".\n"
                index += 2
                continue
            }
            out += character == "\\" ? "\\e" : String(character)
            index += 1
        }
        return out.split(separator: "\n").map { lineStart(String($0)) }.joined(separator: "\n")
    }

    /// Keeps a text line from being read as a request or a control line.
    static func lineStart(_ line: String) -> String {
        line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
    }

    /// A macro argument in double quotes.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for character in text {
            out += character == "\"" ? "\\(dq" : String(character)
        }
        return out + "\""
    }

}
