/// What a subcommand prints when it succeeds.
struct CommandResult {
    /// Text for standard output (the result), if any.
    var output: String?
    /// Messages for standard error, without the `keyid: ` prefix.
    var notices: [String] = []
    /// The exit status; only `doctor` reports a failure this way, with its output.
    var status: Int32 = 0
    /// The failed write of output the command wrote as it went (`doctor`).
    var streamFailure = StreamFailure.none

    /// Whether writing the output as the command went failed, and how. (An enum of its own: an
    /// optional error, copied, builds its type's metadata on every run.)
    enum StreamFailure {
        case none
        case failed(SystemCallError)
    }
    /// What the run changed in the keyring before printing, for a message when the output
    /// cannot be written, e.g. "a new ID was stored".
    var change: String?

    /// The result for one ID: its text or JSON, and the warnings that came with it.
    init(_ reading: DeviceIDs.Reading, settings: Settings) {
        let record = reading.record
        let form = settings.format == .env ? IDFormat.uuid : settings.format
        let signals = reading.cloneSignals
        if settings.json {
            var json = JSONRecord(
                id: record.id.formatted(form), service: record.key.service, account: record.key.account,
                label: record.item.label, created: record.item.created, modified: record.item.modified)
            if let replaced = reading.replaced {
                json.replaced = (
                    replaced.previousID?.formatted(form), replaced.reason == .rotation ? "rotate" : "clone"
                )
            }
            json.differs = signals.map(\.rawValue)
            output = json.text + "\n"
        } else {
            output = record.id.formatted(settings.format) + "\n"
            if settings.format == .env, let replaced = reading.replaced {
                output! +=
                    IDFormat.previousEnvironmentVariable + "=" + (replaced.previousID?.formatted(.uuid) ?? "") + "\n"
            }
        }
        notices = reading.warnings.map { CommandLineText.line($0, for: record.key, differing: signals) }
    }

    init(output: String?, notices: [String] = [], status: Int32 = 0) {
        self.output = output
        self.notices = notices
        self.status = status
    }
}
