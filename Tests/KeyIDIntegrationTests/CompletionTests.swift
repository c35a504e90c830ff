import Foundation
import Testing

@testable import KeyIDKit
@testable import KeyIDTestSupport

/// What bash, zsh and fish offer once the checked-in completion scripts are loaded, each
/// shell run non-interactively.
@Suite("Completion", .tags(.tools))
struct CompletionTests {
    @Test("keyid <TAB> offers the subcommands and help", arguments: CompletingShell.allCases)
    func offersSubcommands(shell: CompletingShell) throws {
        let offered = try shell.complete("keyid ")
        #expect(offered == (Subcommand.allCases.map(\.rawValue) + ["help"]).sorted())
    }

    @Test("keyid --<TAB> offers --help and --version", arguments: CompletingShell.allCases)
    func offersGlobalOptions(shell: CompletingShell) throws {
        #expect(try shell.complete("keyid --") == ["--help", "--version"])
    }

    @Test("keyid help <TAB> offers the subcommands", arguments: CompletingShell.allCases)
    func offersSubcommandsAfterHelp(shell: CompletingShell) throws {
        #expect(try shell.complete("keyid help ") == Subcommand.allCases.map(\.rawValue).sorted())
    }

    @Test(
        "keyid SUBCOMMAND --<TAB> offers exactly the subcommand's options",
        arguments: CompletingShell.allCases, Subcommand.allCases)
    func offersSubcommandOptions(shell: CompletingShell, subcommand: Subcommand) throws {
        let expected = CommandTable.spec(for: subcommand).options.map(\.flag).sorted()
        #expect(try shell.complete("keyid \(subcommand.rawValue) --") == expected)
    }

    @Test("keyid get --<TAB> offers get's options and not delete's --force", arguments: CompletingShell.allCases)
    func offersGetOptions(shell: CompletingShell) throws {
        let offered = try shell.complete("keyid get --")
        for flag in [
            "--create", "--value", "--service", "--account", "--format", "--json", "--no-prompt", "--timeout", "--help",
        ] {
            #expect(offered.contains(flag), "\(shell) does not offer \(flag)")
        }
        #expect(!offered.contains("--force"))
        #expect(!offered.contains("--derive"))
    }

    @Test("keyid get --format <TAB> offers exactly uuid, upper, hex, urn and env", arguments: CompletingShell.allCases)
    func offersFormats(shell: CompletingShell) throws {
        #expect(try shell.complete("keyid get --format ") == ["env", "hex", "upper", "urn", "uuid"])
        #expect(try shell.complete("keyid rotate --format u") == ["upper", "urn", "uuid"])
    }

    @Test("keyid get --format=<TAB> offers the formats after the '='", arguments: CompletingShell.allCases)
    func offersFormatsAfterEquals(shell: CompletingShell) throws {
        let offered = try shell.complete("keyid get --format=").map {
            $0.replacingOccurrences(of: "--format=", with: "")
        }
        #expect(offered == ["env", "hex", "upper", "urn", "uuid"])
    }

    @Test("keyid rotate --value <TAB> offers only -", arguments: CompletingShell.allCases)
    func offersStandardInputOnly(shell: CompletingShell) throws {
        #expect(try shell.complete("keyid rotate --value ") == ["-"])
    }

    @Test("a free-form value gets no suggestions", arguments: CompletingShell.allCases)
    func offersNothingForNames(shell: CompletingShell) throws {
        #expect(try shell.complete("keyid get --service ") == [])
        #expect(try shell.complete("keyid delete --timeout ") == [])
    }

    @Test("the scripts parse", arguments: CompletingShell.allCases)
    func scriptParses(shell: CompletingShell) throws {
        let executable = try #require(ShellProcess.executable(shell.rawValue), "\(shell) is not installed")
        let result = try ShellProcess.run(executable, ["-n", shell.script])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(shell.script): \(result.stderr)")
    }

    @Test("the bash script registers _keyid and needs no bash-completion helper")
    func bashStandsAlone() throws {
        let script = try String(
            contentsOf: URL(fileURLWithPath: TestEnvironment.root).appendingPathComponent(CompletingShell.bash.script),
            encoding: .utf8)
        for helper in ["_init_completion", "_get_comp_words_by_ref", "_comp_", "__ltrim_colon_completions"] {
            #expect(!script.contains(helper), "the bash script uses \(helper)")
        }
        let bash = try #require(ShellProcess.executable("bash"))
        let registered = try ShellProcess.run(
            bash, ["--norc", "--noprofile", "-c", "source \(CompletingShell.bash.script) && complete -p keyid"])
        #expect(registered.stdout == "complete -F _keyid keyid\n")
        #expect(
            try CompletingShell.bash.complete("keyid get --format ", bashCompletion: false) == [
                "env", "hex", "upper", "urn", "uuid",
            ])
        #expect(
            try CompletingShell.bash.complete("keyid ", bashCompletion: false).count == Subcommand.allCases.count + 1)
    }

    @Test("the fish script defines no function in fish's namespace")
    func fishDefinesNoFishFunction() throws {
        let script = try String(
            contentsOf: URL(fileURLWithPath: TestEnvironment.root).appendingPathComponent(CompletingShell.fish.script),
            encoding: .utf8)
        #expect(!script.contains("function __fish_"))
        for line in script.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("function ")
        {
            #expect(line.trimmingCharacters(in: .whitespaces).hasPrefix("function __keyid_"), "\(line)")
        }
    }
}

/// A shell that completes a `keyid` command line with the checked-in script.
enum CompletingShell: String, CaseIterable, Sendable {
    case bash, zsh, fish

    /// The script, relative to the repository root.
    var script: String {
        switch self {
        case .bash: return "completions/keyid.bash"
        case .zsh: return "completions/_keyid"
        case .fish: return "completions/keyid.fish"
        }
    }

    /// The words offered for `line` (the cursor at its end), sorted; descriptions dropped.
    func complete(_ line: String, bashCompletion: Bool = true) throws -> [String] {
        guard let executable = ShellProcess.executable(rawValue) else {
            Issue.record("\(rawValue) is not installed")
            return []
        }
        let result: ShellProcess.Result
        switch self {
        case .bash:
            if bashCompletion, !FileManager.default.fileExists(atPath: Self.bashCompletionPath) {
                Issue.record("bash-completion is not installed (\(Self.bashCompletionPath))")
            }
            result = try ShellProcess.run(
                executable,
                [
                    "--norc", "--noprofile", "-c", Self.bashDriver, "keyid-completion", bashCompletion ? "yes" : "no",
                    line,
                ]
                    + Self.bashWords(line),
                environment: ["BASH_ENV": nil, "ENV": nil])
        case .zsh:
            result = try ShellProcess.run(
                executable, ["-f", "-c", Self.zshDriver, "keyid-completion", line],
                environment: [
                    "KEYID_COMPLETIONS": URL(fileURLWithPath: TestEnvironment.root).appendingPathComponent(
                        "completions"
                    ).path,
                    "KEYID_ZSH_SETUP": Self.zshSetup, "TERM": "dumb",
                ])
        case .fish:
            result = try ShellProcess.run(
                executable, ["--no-config", "-c", "source $argv[1]; and complete -C $argv[2]", script, line])
        }
        #expect(result.status == 0, "\(rawValue) failed on '\(line)': \(result.stderr)")
        return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t", maxSplits: 1)[0]) }.sorted()
    }

    static let bashCompletionPath = "/usr/share/bash-completion/bash_completion"

    /// How readline splits a line into `COMP_WORDS`: at spaces, and around `=`. With nothing
    /// after the `=` yet, the `=` itself is the word being completed.
    static func bashWords(_ line: String) -> [String] {
        var words: [String] = []
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            if let equals = word.firstIndex(of: "="), equals != word.startIndex {
                let value = word[word.index(after: equals)...]
                words += [String(word[..<equals]), "="] + (value.isEmpty ? [] : [String(value)])
            } else {
                words.append(String(word))
            }
        }
        return words
    }

    /// Loads the script (after bash-completion when `$1` is `yes`), sets the variables bash
    /// sets for a completion function, calls `_keyid` and prints `COMPREPLY`.
    static let bashDriver = #"""
        if [[ $1 == yes ]]; then
            source /usr/share/bash-completion/bash_completion || exit 3
        fi
        source completions/keyid.bash || exit 3
        COMP_LINE=$2
        COMP_POINT=${#COMP_LINE}
        shift 2
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _keyid keyid "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
        """#

    /// Runs an interactive `zsh -f` in a pseudo-terminal (zsh/zpty), loads the setup below in
    /// it, types the line and a TAB, and prints what the completion system offered.
    static let zshDriver = #"""
        zmodload zsh/zpty || exit 3
        () {
            local line
            zpty keyid zsh -f -i
            zpty -w keyid "source ${(q)1}"
            while zpty -r keyid line; do [[ $line == *KEYID-READY* ]] && break; done
            zpty -w -n keyid "$argv[2]"$'\t'
            while zpty -r keyid line; do
                line=${line//[$'\r\n']/}
                [[ $line == *KEYID-END* ]] && break
                [[ $line == *KEYID-MATCH:* ]] && print -r -- ${line#*KEYID-MATCH:}
            done
            zpty -d keyid
        } =(print -r -- $KEYID_ZSH_SETUP) "$1"
        """#

    /// Loaded in the pseudo-terminal's shell: compinit with the completions directory in
    /// `fpath`, and a `compadd` that prints each match instead of offering it, then exits.
    static let zshSetup = #"""
        PROMPT='' RPROMPT=''
        fpath=("$KEYID_COMPLETIONS" ${(M)fpath:#*/Completion(|/Base|/Zsh)})
        autoload -Uz compinit
        compinit -u -D
        bindkey '^I' complete-word
        zstyle ':completion:*' insert-tab false
        compadd() {
            if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
                builtin compadd "$@"
                return
            fi
            local -a __keyid_hits
            builtin compadd -A __keyid_hits "$@"
            (( $#__keyid_hits )) && print -rl -- "KEYID-MATCH:"${^__keyid_hits}
        }
        __keyid_finish() { print -r -- KEYID-END; exit }
        comppostfuncs=(__keyid_finish)
        print -r -- KEYID-READY
        """#
}
