import Testing

/// Parent of the end-to-end suites that run the built binary: `.serialized` applies to every
/// nested suite, so only one binary crawls at a time and the rest of the test run (with its
/// timing-sensitive HTTP tests) keeps most of the machine.
@Suite("feedcrawl binary, end to end", .serialized)
struct BinaryTests {}
