@testable import KeyIDKit

/// The command-line parser, then the settings over an environment, on any input.
///
/// The input is NUL-separated fields: the arguments after the program name, an empty
/// field, then `NAME=VALUE` environment entries (a value that is not UTF-8 makes the
/// variable one that is set to something keyid must refuse).
///
/// Properties: every refusal is a usage error on one line with no control character;
/// a parsed command line written back in canonical form (`--flag`, `--option=value`,
/// `-- argument`) parses to the same invocation; settings that are accepted hold a valid
/// service and account, a timeout in range and no nil UUID as the application ID.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    ArgumentsFuzzer.run(FuzzInput(data, size))
    return 0
}

enum ArgumentsFuzzer {
    static func run(_ input: FuzzInput) {
        let fields = input.fields
        let split = fields.firstIndex(where: \.isEmpty) ?? fields.endIndex
        let arguments = fields[..<split].map(FuzzInput.text)
        var values: [String: String] = [:]
        var malformed: Set<String> = []
        for entry in fields[split...].dropFirst() {
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = FuzzInput.text(entry[..<equals])
            if let value = String(validating: entry[(equals + 1)...], as: UTF8.self) {
                values[name] = value
            } else {
                malformed.insert(name)
            }
        }
        let environment = ProcessEnvironment(values, malformed: malformed)

        let invocation: Invocation
        do {
            invocation = try Parser.parse(arguments)
        } catch {
            checkRefusal(error, from: "Parser.parse", input.bytes)
            guard error.message.hasSuffix("--help'") else {
                violated("a parser error does not end with a hint to --help: \(error.message)", input.bytes)
            }
            return
        }
        switch invocation {
        case .version:
            return
        case .help(let subcommand):
            _ = HelpText.render(subcommand)
        case .run(let subcommand, let options):
            let again = try? Parser.parse(canonical(subcommand, options))
            guard again == invocation else {
                violated("the canonical form of \(invocation) parses to \(String(describing: again))", input.bytes)
            }
            checkSettings(subcommand, options, environment, input.bytes)
        }
    }

    /// The command line that says exactly what `options` hold.
    static func canonical(_ subcommand: Subcommand, _ options: CommandLineOptions) -> [String] {
        var words = [subcommand.rawValue]
        for given in options.given.sorted(by: { $0.option.rawValue < $1.option.rawValue }) {
            words.append(given.option.flag + (given.text.map { "=" + $0 } ?? ""))
        }
        if let argument = options.argument { words += ["--", argument] }
        return words
    }

    static func checkSettings(
        _ subcommand: Subcommand, _ options: CommandLineOptions, _ environment: ProcessEnvironment, _ input: [UInt8]
    ) {
        let settings: Settings
        do {
            settings = try Settings(subcommand, options: options, environment: environment)
        } catch {
            checkRefusal(error, from: "Settings", input)
            return
        }
        do {
            let key = try ItemKey(service: settings.key.service, account: settings.key.account)
            guard key == settings.key else { violated("the item key changed when checked again", input) }
        } catch {
            violated("Settings accepted an invalid item key: \(error.message)", input)
        }
        if let service = options.text(.service), service != settings.key.service {
            violated("--service '\(service)' became '\(settings.key.service)'", input)
        }
        guard settings.timeout > 0, settings.timeout <= CommandTable.maximumTimeout else {
            violated("a timeout of \(settings.timeout) s was accepted", input)
        }
        if let application = settings.application, application.bytes.allSatisfy({ $0 == 0 }) {
            violated("the nil UUID was accepted as an application ID", input)
        }
        for name in [settings.collection, settings.user] where name?.isEmpty == true {
            violated("an empty --collection or --user was accepted", input)
        }
    }

    /// A refusal must be a usage error (exit 2) whose message is one printable line.
    static func checkRefusal(_ error: KeyIDError, from stage: String, _ input: [UInt8]) {
        guard case .usage(let message) = error else {
            violated("\(stage) threw \(error), not a usage error", input)
        }
        if message.isEmpty
            || message.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        {
            violated("\(stage)'s message is empty or holds a control character: \(message.debugDescription)", input)
        }
    }
}
