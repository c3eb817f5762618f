import FuzzSupport

/// libFuzzer entry point: `FuzzChecks.manifest` (see there for what it checks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzInput.run(data, size, FuzzChecks.manifest)
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzManifest) }
}
#endif
