import FuzzSupport

/// libFuzzer entry point: `FuzzChecks.imageStructure` (see there for what it checks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageStructure(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzInput.run(data, size, FuzzChecks.imageStructure)
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzImageStructure) }
}
#endif
