import FuzzSupport

/// libFuzzer entry point of every fuzz target: the check `FEEDCRAWL_FUZZ_TARGET` names
/// (`FuzzChecks.targets`; see each check for what it checks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzInput.run(data, size, FuzzChecks.selected)
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzOneInput) }
}
#endif
