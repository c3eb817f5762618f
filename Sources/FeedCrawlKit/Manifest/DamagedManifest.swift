/// A `manifest.json` that cannot be parsed, described for the operator: the file, what was
/// lost and how to recover. Nothing is changed while a manifest is damaged.
public struct DamagedManifest: Error, Sendable, Equatable, CustomStringConvertible {
    /// The damaged file.
    public var path: String
    /// What the parser found, e.g. `unexpected end of input at byte 4096`.
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The `.corrupt` error of the manifest at one of `paths` as a `DamagedManifest`; nil for any
    /// other error (an I/O error, a damaged journal).
    public static func from(_ error: any Error, manifestPaths paths: [String]) -> DamagedManifest? {
        guard let error = error as? ManifestStore.Error, case .corrupt(let path, let reason) = error,
              paths.contains(path),
              // Written by a newer feedcrawl: not damaged, and moving it aside would lose it.
              !reason.hasPrefix("unsupported manifest version") else { return nil }
        return DamagedManifest(path: path, reason: reason)
    }

    /// One line: the file and the damage, what was lost, the way to recover.
    public var description: String {
        let shown = Self.shellQuoted(path)
        return "\(path) is damaged (\(reason)), and the archive holds no whole copy of it and no segment to rebuild "
            + "it from; nothing was changed. "
            + "Lost: the record of earlier runs (which cached file holds which image, and each item's outcome); "
            + "the images in the cache are untouched. "
            + "To recover, move it aside and run again (the run starts a new archive and downloads the images again): "
            + "mv \(shown) \(Self.shellQuoted(path + ".damaged"))"
    }

    /// `text` as one shell word: as is when it holds only safe characters, else in single quotes.
    public static func shellQuoted(_ text: String) -> String {
        let safe = text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "/._-+,:@%".utf8.contains(byte)
        }
        return safe && !text.isEmpty ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
