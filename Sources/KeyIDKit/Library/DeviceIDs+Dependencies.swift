extension DeviceIDs {
    /// What an instance is built from besides its backend and options: how it opens its store,
    /// serialises its writes, makes IDs and reads the machine. ``system(_:)`` is the
    /// real one, for programs and the `keyid` command alike; tests give their own.
    package struct Dependencies {
        package var openStore: (Backend, Options) throws(KeyIDError) -> any SecretStore
        package var serializer: (Options) -> any WriteSerializer
        package var generate: () -> DeviceID
        /// Reads the machine ID from a file (``Options/machineIDFile``, else `/etc/machine-id`).
        package var readMachineID: (String) throws(KeyIDError) -> MachineID
        /// Reads one of the other ``MachineSignal``s; `nil` when it cannot be read.
        package var readSignal: (MachineSignal) -> [UInt8]?

        package init(
            openStore: @escaping (Backend, Options) throws(KeyIDError) -> any SecretStore,
            serializer: @escaping (Options) -> any WriteSerializer,
            generate: @escaping () -> DeviceID,
            readMachineID: @escaping (String) throws(KeyIDError) -> MachineID,
            readSignal: @escaping (MachineSignal) -> [UInt8]?
        ) {
            self.openStore = openStore
            self.serializer = serializer
            self.generate = generate
            self.readMachineID = readMachineID
            self.readSignal = readSignal
        }

        /// The system's, for programs and the command alike: the store on the session bus
        /// `environment` leads to (on a connection of its own) or in files, keyid's lock file
        /// (waited for as ``Options/host`` says), random IDs, and the machine's files.
        package static func system(_ environment: ProcessEnvironment) -> Dependencies {
            Dependencies(
                openStore: { backend, options in DeviceIDs.store(for: backend, options, environment) },
                serializer: { options in
                    LockFileSerializer(waitingAtMost: options.host.lockWait(options.timeout)) {
                        () throws(KeyIDError) in try Locations.lockDirectory(environment)
                    }
                },
                generate: DeviceID.random,
                readMachineID: { path throws(KeyIDError) in
                    try SystemFailure.reported { () throws(SystemFailure) in try MachineID.read(from: path) }
                },
                readSignal: { $0.read() })
        }
    }
}
