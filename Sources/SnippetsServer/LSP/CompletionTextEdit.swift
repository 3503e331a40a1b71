/// A completion item's edit: a plain `TextEdit` or, for clients that support it, an `InsertReplaceEdit`.
public enum CompletionTextEdit: Codable, Hashable, Sendable {
    case textEdit(TextEdit)
    case insertReplace(InsertReplaceEdit)

    public init(from decoder: any Decoder) throws {
        if let edit = try? InsertReplaceEdit(from: decoder) {
            self = .insertReplace(edit)
        } else {
            self = .textEdit(try TextEdit(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .textEdit(let edit): try edit.encode(to: encoder)
        case .insertReplace(let edit): try edit.encode(to: encoder)
        }
    }
}
