import FuzzSupport

/// libFuzzer entry point: `FuzzChecks.launchesPage` (see there for what it checks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLaunchesPage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzInput.run(data, size, FuzzChecks.launchesPage)
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzLaunchesPage) }
}
#endif
