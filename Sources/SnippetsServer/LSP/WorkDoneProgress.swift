/// `$/progress` params for a work-done progress token.
struct WorkDoneProgress: Encodable, Sendable {
    struct Value: Encodable, Sendable {
        var kind: String
        var title: String?
        var message: String?
        var cancellable: Bool?
        var percentage: Int?
    }

    var token: JSONValue
    var value: Value
}
