extension Array where Element == String {
    /// The items as a sentence lists them: "a", "a or b", "a, b or c" (with `conjunction` "or").
    public func listed(conjunction: String) -> String {
        guard let last else { return "" }
        return count == 1 ? last : dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }
}
