import Glibc
import KeyIDKit

// The whole program lives in KeyIDKit; this file only turns its result into an exit status.
exit(KeyIDCommand.main())
