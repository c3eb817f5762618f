import FuzzSupport

/// libFuzzer entry point: `FuzzChecks.imageSniffer` (see there for what it checks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageSniffer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzInput.run(data, size, FuzzChecks.imageSniffer)
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzImageSniffer) }
}
#endif
