extension String {
    /// The UTF-8 bytes, as handed to decoders by the HTTP layer.
    var bytes: [UInt8] { Array(utf8) }
}
