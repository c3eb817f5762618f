/// An image format the cache accepts. Raw values are the canonical lowercase names.
public enum ImageFormat: String, Sendable, Codable, CaseIterable, Hashable {
    case jpeg
    case png
    case gif
    case webp

    /// File extension used for cache entries, without the dot: `jpg`, `png`, `gif`, `webp`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        }
    }

    /// Canonical media type: `image/jpeg`, `image/png`, `image/gif`, `image/webp`.
    public var mimeType: String {
        "image/" + rawValue
    }

    /// The format for a file extension (case-insensitive, with or without a leading dot;
    /// `jpg`, `jpeg` and `jpe` all map to `.jpeg`), or nil when unknown.
    public init?(fileExtension: String) {
        var ext = fileExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        switch ext {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        case "gif": self = .gif
        case "webp": self = .webp
        default: return nil
        }
    }
}

/// What the header of an image says: its format and pixel dimensions (both at least 1).
public struct ImageInfo: Sendable, Hashable, Codable {
    /// The detected format.
    public var format: ImageFormat
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates an image description.
    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}
