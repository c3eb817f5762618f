import FuzzSupport

/// libFuzzer entry point: `FuzzChecks.pixabayPage` (see there for what it checks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPixabayPage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzInput.run(data, size, FuzzChecks.pixabayPage)
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzPixabayPage) }
}
#endif
