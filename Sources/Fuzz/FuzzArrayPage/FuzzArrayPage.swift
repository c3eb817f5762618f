import FuzzSupport

/// libFuzzer entry point: `FuzzChecks.arrayPage` (see there for what it checks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArrayPage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzInput.run(data, size, FuzzChecks.arrayPage)
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzArrayPage) }
}
#endif
