extension Duration {
    /// This duration in seconds, as a `Double` (for figures printed or reported, not for arithmetic on time).
    var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
