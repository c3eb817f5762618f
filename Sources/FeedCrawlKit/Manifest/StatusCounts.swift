/// Items and images by status.
public struct StatusCounts: Sendable, Equatable {
    /// Items by (derived) status.
    public var items: [ItemStatus: Int] = [:]
    /// Images by status.
    public var images: [ItemStatus: Int] = [:]

    /// Empty counts.
    public init() {}

    /// Counts `item` and its images.
    public mutating func add(_ item: ManifestItem) {
        items[item.status, default: 0] += 1
        for image in item.images { images[image.status, default: 0] += 1 }
    }

    /// How many items there are.
    public var itemCount: Int { items.values.reduce(0, +) }
}
