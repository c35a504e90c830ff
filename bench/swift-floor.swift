// The Swift floor (make bench, bench/bench.py): the own-connection floor's C code
// (bench/own-connection-floor.c, its main renamed own_floor_main) in a Swift executable
// linked like keyid's release binary: the Swift runtime's start-up, statically linked, and
// nothing of keyid's. What keyid get costs above it is keyid's own code; what it costs above
// the own-connection floor is the Swift runtime's start-up.
//
//   bench-swift-floor [--attributes] SERVICE ACCOUNT   (--attributes: GetSecrets with the
//   item's Attributes read, as keyid get makes them: bench/own-connection-floor.c)
import Glibc

@_silgen_name("own_floor_main")
func ownFloorMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32

exit(ownFloorMain(CommandLine.argc, CommandLine.unsafeArgv))
