import FuzzSupport

/// libFuzzer entry point: `FuzzChecks.headers` (see there for what it checks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzInput.run(data, size, FuzzChecks.headers)
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzHeaders) }
}
#endif
