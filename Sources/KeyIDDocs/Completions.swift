import KeyIDKit

/// The bash, zsh and fish completion scripts, rendered from ``CommandTable``.
///
/// Each offers the subcommands (and `help`) with their abstracts, each subcommand's options
/// (`-h`/`--help` included), the fixed values of options that have them, the subcommands after
/// `keyid help`, and `--help`/`--version` before a subcommand.
public enum Completions {
    static let header = "# Generated from the command table by keyid-docs ('make docs'); do not edit."

    /// The bash script: one function, `_keyid`, registered with `complete -F`. It uses only
    /// `compgen` and `COMPREPLY`, so it works with or without the bash-completion package.
    public static func bash() -> String {
        let valueOptions = CommandTable.allOptions.filter { $0.valueName != nil }
        var lines = [
            "# bash completion for keyid",
            header,
            "",
            "_keyid()",
            "{",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev= option equals= subcommand= target= word i",
            "    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}",
            "    COMPREPLY=()",
            "",
            "    # bash splits an option written with '=' into three words: the option, '=' and the value.",
            "    option=$prev",
            "    if [[ $cur == = ]]; then",
            "        cur= equals=1",
            "    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then",
            "        option=${COMP_WORDS[COMP_CWORD - 2]} equals=1",
            "    fi",
            "    case $option in",
        ]
        for spec in valueOptions where !spec.choices.isEmpty {
            let words = singleQuoted(spec.choices.joined(separator: " "))
            lines.append("        \(spec.flag)) mapfile -t COMPREPLY < <(compgen -W \(words) -- \"$cur\"); return ;;")
        }
        let free = valueOptions.filter(\.choices.isEmpty).map(\.flag)
        if !free.isEmpty { lines.append("        \(free.joined(separator: "|"))) return ;;") }
        lines += [
            "    esac",
            "    [[ -n $equals ]] && return",
            "",
            "    for ((i = 1; i < COMP_CWORD; i++)); do",
            "        word=${COMP_WORDS[i]}",
            "        case $word in",
            "            \(valueOptions.map(\.flag).joined(separator: "|")))",
            "                [[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))",
            "                ((i++))",
            "                ;;",
            "            -*) ;;",
            "            *)",
            "                if [[ -z $subcommand ]]; then",
            "                    subcommand=$word",
            "                elif [[ $subcommand == help && -z $target ]]; then",
            "                    target=$word",
            "                fi",
            "                ;;",
            "        esac",
            "    done",
            "",
            "    case $subcommand in",
            "        '')",
            "            if [[ $cur == -* ]]; then",
            "                mapfile -t COMPREPLY < <(compgen -W \(singleQuoted(flags(CommandTable.globalOptions))) -- \"$cur\")",
            "            else",
            "                mapfile -t COMPREPLY < <(compgen -W \(singleQuoted(subcommandNames(withHelp: true))) -- \"$cur\")",
            "            fi",
            "            ;;",
            "        help)",
            "            [[ -z $target ]] &&",
            "                mapfile -t COMPREPLY < <(compgen -W \(singleQuoted(subcommandNames(withHelp: false))) -- \"$cur\")",
            "            ;;",
        ]
        for spec in CommandTable.subcommands {
            lines += [
                "        \(spec.name))",
                "            mapfile -t COMPREPLY < <(compgen -W \(singleQuoted(flags(spec.options))) -- \"$cur\")",
                "            ;;",
            ]
        }
        lines += [
            "    esac",
            "}",
            "",
            "complete -F _keyid keyid",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The zsh script, `_keyid`, for a directory in `fpath`: `_arguments` for options and
    /// values, `_describe` for subcommands.
    public static func zsh() -> String {
        var lines = [
            "#compdef keyid",
            "# zsh completion for keyid",
            header,
            "",
            "# The subcommands; with the argument 'all', also 'help'.",
            "_keyid_subcommands() {",
            "  local -a subcommands=(",
        ]
        for spec in CommandTable.subcommands {
            lines.append("    " + singleQuoted(describeEntry(spec.name, spec.abstract)))
        }
        lines += [
            "  )",
            "  [[ $1 == all ]] && subcommands+=(\(singleQuoted(describeEntry("help", CommandTable.helpAbstract))))",
            "  _describe -t subcommands 'keyid subcommand' subcommands",
            "}",
            "",
            "_keyid() {",
            "  local curcontext=$curcontext state line ret=1",
            "  _arguments -C \\",
        ]
        lines += CommandTable.globalOptions.map { "    " + zshSpec($0, $0.summary, exclusive: true) + " \\" }
        lines += [
            "    '1: :{_keyid_subcommands all}' \\",
            "    '*:: :->subcommand' && ret=0",
            "  [[ $state == subcommand ]] || return ret",
            "",
            "  curcontext=${curcontext%:*:*}:keyid-$words[1]:",
            "  case $words[1] in",
            "    help)",
            "      _arguments '1: :_keyid_subcommands' && ret=0",
            "      ;;",
        ]
        for spec in CommandTable.subcommands {
            lines += ["    \(spec.name))", "      _arguments \\"]
            lines += spec.options.map {
                "        " + zshSpec($0, $0.summary(for: spec.subcommand), exclusive: $0.option == .help) + " \\"
            }
            lines[lines.count - 1].removeLast(2)
            lines[lines.count - 1] += " && ret=0"
            lines.append("      ;;")
        }
        lines += [
            "  esac",
            "  return ret",
            "}",
            "",
            "_keyid \"$@\"",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The fish script: `complete` lines whose conditions use fish's own
    /// `__fish_use_subcommand` and `__fish_seen_subcommand_from`; it defines no functions.
    public static func fish() -> String {
        let names = subcommandNames(withHelp: false)
        var lines = ["# fish completion for keyid", header, "", "complete -c keyid -f"]
        for spec in CommandTable.subcommands {
            lines.append("complete -c keyid -n __fish_use_subcommand -a \(spec.name) -d \(fishQuoted(spec.abstract))")
        }
        lines.append("complete -c keyid -n __fish_use_subcommand -a help -d \(fishQuoted(CommandTable.helpAbstract))")
        lines += CommandTable.globalOptions.map { fishLine($0, $0.summary, condition: "__fish_use_subcommand") }
        lines.append("")
        let afterHelp = fishQuoted("__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from \(names)")
        for spec in CommandTable.subcommands {
            lines.append("complete -c keyid -n \(afterHelp) -a \(spec.name) -d \(fishQuoted(spec.abstract))")
        }
        for spec in CommandTable.subcommands {
            lines.append("")
            let condition = fishQuoted("__fish_seen_subcommand_from \(spec.name)")
            lines += spec.options.map { fishLine($0, $0.summary(for: spec.subcommand), condition: condition) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Shared

    static func subcommandNames(withHelp: Bool) -> String {
        (CommandTable.subcommands.map(\.name) + (withHelp ? ["help"] : [])).joined(separator: " ")
    }

    /// The spellings of the options, `-h` included.
    static func flags(_ options: [OptionSpec]) -> String {
        options.flatMap(\.option.spellings).joined(separator: " ")
    }

    // MARK: - zsh

    /// One `_arguments` spec: `--flag=[summary]:message:(choices)` for an option with a value,
    /// `--flag[summary]` for a flag. An exclusive option (`--help`) excludes everything else.
    static func zshSpec(_ spec: OptionSpec, _ summary: String, exclusive: Bool) -> String {
        let description = "[" + zshEscaped(summary, special: "[]:\\") + "]"
        var value = ""
        if spec.valueName != nil {
            let action = spec.choices.isEmpty ? " " : "(" + spec.choices.joined(separator: " ") + ")"
            value = ":" + camelCased(spec.option.rawValue) + ":" + action
        }
        let exclusion = exclusive ? "(- : *)" : ""
        if let short = spec.option.shortFlag {
            return singleQuoted(exclusion) + "{\(short),\(spec.flag)}" + singleQuoted(description)
        }
        return singleQuoted(exclusion + spec.flag + (spec.valueName == nil ? "" : "=") + description + value)
    }

    /// An option's name as `_arguments` messages show it: `on-clone` as `onClone`.
    static func camelCased(_ name: String) -> String {
        let words = name.split(separator: "-")
        return words.prefix(1).joined() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// A `name:description` entry for `_describe`.
    static func describeEntry(_ name: String, _ description: String) -> String {
        zshEscaped(name, special: ":\\") + ":" + description
    }

    static func zshEscaped(_ text: String, special: String) -> String {
        var out = ""
        for character in text {
            if special.contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// A word in single quotes for bash or zsh.
    static func singleQuoted(_ text: String) -> String {
        var out = "'"
        for character in text {
            out += character == "'" ? "'\\''" : String(character)
        }
        return out + "'"
    }

    // MARK: - fish

    static func fishLine(_ spec: OptionSpec, _ summary: String, condition: String) -> String {
        var line = "complete -c keyid -n \(condition)"
        if let short = spec.option.shortFlag { line += " -s " + short.dropFirst() }
        line += " -l " + String(spec.flag.dropFirst(2))
        if spec.valueName != nil {
            line += " -x"
            if !spec.choices.isEmpty { line += " -a " + fishQuoted(spec.choices.joined(separator: " ")) }
        }
        return line + " -d " + fishQuoted(summary)
    }

    /// A word in single quotes for fish, where `\` and `'` are escaped with a backslash.
    static func fishQuoted(_ text: String) -> String {
        var out = "'"
        for character in text {
            if character == "\\" || character == "'" { out.append("\\") }
            out.append(character)
        }
        return out + "'"
    }
}
