/// CRC-32 as PNG, zlib and gzip use it (reflected polynomial 0xEDB88320, initial value and final
/// XOR 0xFFFFFFFF), in pure Swift.
///
/// Slicing-by-8: eight 256-entry tables (8 KiB, built once) let each step fold eight input bytes
/// with eight independent table loads instead of eight dependent ones; long runs go three such
/// chains at a time (see `update`). Input is read through unaligned 64-bit loads straight from
/// the caller's buffer; nothing is copied or allocated.
///
/// ```swift
/// var crc = CRC32.update(0, part1)   // 0 = the CRC of no bytes
/// crc = CRC32.update(crc, part2)     // == CRC32.checksum(part1 + part2)
/// ```
public enum CRC32 {
    /// The eight tables, table k at `k * 256`: entry `t[k][b]` is the CRC register after feeding
    /// byte `b` followed by `k` zero bytes. Never freed (8 KiB for the life of the process).
    nonisolated(unsafe) static let table: UnsafePointer<UInt32> = {
        let t = UnsafeMutablePointer<UInt32>.allocate(capacity: 8 * 256)
        for byte in 0..<256 {
            var c = UInt32(byte)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[byte] = c
        }
        for k in 1..<8 {
            for byte in 0..<256 {
                let previous = t[(k - 1) * 256 + byte]
                t[k * 256 + byte] = (previous >> 8) ^ t[Int(previous & 0xFF)]
            }
        }
        return UnsafePointer(t)
    }()

    /// The CRC of the bytes before (`crc`, 0 for none) extended over `bytes`.
    @inline(__always)
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        return update(crc, base, bytes.count)
    }

    /// Bytes per lane in `update`'s three-lane loop.
    static let laneBytes = 512

    /// Four 256-entry tables that advance a CRC register over `laneBytes` zero bytes: the register
    /// `r` becomes `s[r & 0xFF] ^ s[256 + (r >> 8) & 0xFF] ^ s[512 + ...] ^ s[768 + r >> 24]`.
    nonisolated(unsafe) static let laneShift: UnsafePointer<UInt32> = {
        // The register is linear in its bits: advance each of the 32 single-bit registers, then
        // XOR together those of each table entry's bits.
        let t = table
        var bits = [UInt32](repeating: 0, count: 32)
        for bit in 0..<32 {
            var r = UInt32(1) << UInt32(bit)
            for _ in 0..<laneBytes { r = (r >> 8) ^ t[Int(r & 0xFF)] }
            bits[bit] = r
        }
        let s = UnsafeMutablePointer<UInt32>.allocate(capacity: 4 * 256)
        for k in 0..<4 {
            for byte in 0..<256 {
                var r: UInt32 = 0
                for j in 0..<8 where byte & (1 << j) != 0 { r ^= bits[8 * k + j] }
                s[k * 256 + byte] = r
            }
        }
        return UnsafePointer(s)
    }()

    /// The CRC of the bytes before (`crc`, 0 for none) extended over `count` bytes at `start`.
    ///
    /// One slicing-by-8 step waits for the previous one (table loads, then XORs), so a single
    /// chain runs at about a byte per cycle. Runs of `3 * laneBytes` bytes are therefore done as
    /// three independent chains, one per third, which the CPU overlaps; the registers are
    /// joined with `laneShift` (a CRC register is linear: the register after A then B is the
    /// register after A moved over |B| zero bytes, XOR B's own register from zero).
    static func update(_ crc: UInt32, _ start: UnsafeRawPointer, _ count: Int) -> UInt32 {
        let t = table
        var c = ~crc
        var p = start
        var n = count
        let lane = laneBytes
        if n >= 3 * lane {
            let s = laneShift
            while n >= 3 * lane {
                var a = c, b: UInt32 = 0, d: UInt32 = 0
                var q = p
                let stop = p + lane
                while q < stop {
                    a = step(a, q, t)
                    b = step(b, q + lane, t)
                    d = step(d, q + 2 * lane, t)
                    q += 8
                }
                a = shift(a, s) ^ b
                c = shift(a, s) ^ d
                p += 3 * lane
                n -= 3 * lane
            }
        }
        while n >= 8 {
            c = step(c, p, t)
            p += 8
            n -= 8
        }
        while n > 0 {
            c = (c >> 8) ^ t[Int((c ^ UInt32(p.load(as: UInt8.self))) & 0xFF)]
            p += 1
            n -= 1
        }
        return ~c
    }

    /// One slicing-by-8 step: the register `c` advanced over the 8 bytes at `p`.
    @inline(__always)
    static func step(_ c: UInt32, _ p: UnsafeRawPointer, _ t: UnsafePointer<UInt32>) -> UInt32 {
        // Little-endian load: the first byte is the low byte, as the reflected CRC wants.
        let word = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
        let lo = UInt32(truncatingIfNeeded: word) ^ c
        let hi = UInt32(truncatingIfNeeded: word >> 32)
        let x = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
        let y = t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
        let z = t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
        let w = t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
        return (x ^ y) ^ (z ^ w)
    }

    /// The register `r` advanced over `laneBytes` zero bytes.
    @inline(__always)
    static func shift(_ r: UInt32, _ s: UnsafePointer<UInt32>) -> UInt32 {
        (s[Int(r & 0xFF)] ^ s[256 + Int((r >> 8) & 0xFF)]) ^ (s[512 + Int((r >> 16) & 0xFF)] ^ s[768 + Int(r >> 24)])
    }

    /// The CRC of `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { update(0, $0) }
    }
}
