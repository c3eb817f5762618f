import FeedCrawlKit

/// A minimal JSON value with ordered object keys, serialized compactly.
indirect enum JSON {
    case null
    case bool(Bool)
    case int(Int)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    /// Compact UTF-8 serialization, written by the kit's `JSONText` (strings escaped as the
    /// manifest's are).
    func bytes() -> [UInt8] {
        var text = JSONText(capacity: 256)
        write(into: &text)
        return text.bytes
    }

    private func write(into out: inout JSONText) {
        switch self {
        case .null: out.null()
        case .bool(let b): out.raw(Array((b ? "true" : "false").utf8))
        case .int(let i): out.int(i)
        case .string(let s): out.string(s)
        case .array(let items):
            out.beginArray()
            for item in items {
                out.element()
                item.write(into: &out)
            }
            out.endArray()
        case .object(let members):
            out.beginObject()
            for (key, value) in members {
                out.element()
                out.string(key)
                out.raw([UInt8(ascii: ":")])
                value.write(into: &out)
            }
            out.endObject()
        }
    }
}
