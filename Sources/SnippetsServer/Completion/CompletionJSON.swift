/// Completion replies built straight as `JSONValue`s: a completion list is the largest and most frequent reply,
/// and going through `Encodable` costs a container and a coding path per field. Each member here must give
/// exactly what the type's `Codable` conformance gives (nil optionals left out); `JSONTextTests` checks it.
extension CompletionList: JSONValueRepresentable {
    func jsonValue() -> JSONValue {
        .object(["isIncomplete": .bool(isIncomplete), "items": .array(items.map { $0.jsonValue() })])
    }
}

extension CompletionItem: JSONValueRepresentable {
    func jsonValue() -> JSONValue {
        var object: [String: JSONValue] = ["label": .string(label), "kind": .int(kind)]
        object.reserveCapacity(10)
        if let detail { object["detail"] = .string(detail) }
        if let documentation { object["documentation"] = documentation.jsonValue() }
        if let sortText { object["sortText"] = .string(sortText) }
        if let filterText { object["filterText"] = .string(filterText) }
        if let insertTextFormat { object["insertTextFormat"] = .int(insertTextFormat) }
        if let textEdit { object["textEdit"] = textEdit.jsonValue() }
        if let data { object["data"] = data.jsonValue() }
        return .object(object)
    }
}

extension CompletionTextEdit: JSONValueRepresentable {
    func jsonValue() -> JSONValue {
        switch self {
        case .textEdit(let edit): edit.jsonValue()
        case .insertReplace(let edit): edit.jsonValue()
        }
    }
}

extension TextEdit: JSONValueRepresentable {
    func jsonValue() -> JSONValue { .object(["range": range.jsonValue(), "newText": .string(newText)]) }
}

extension InsertReplaceEdit: JSONValueRepresentable {
    func jsonValue() -> JSONValue {
        .object(["newText": .string(newText), "insert": insert.jsonValue(), "replace": replace.jsonValue()])
    }
}

extension LSPRange: JSONValueRepresentable {
    func jsonValue() -> JSONValue { .object(["start": start.jsonValue(), "end": end.jsonValue()]) }
}

extension Position: JSONValueRepresentable {
    func jsonValue() -> JSONValue { .object(["line": .int(line), "character": .int(character)]) }
}

extension MarkupContent: JSONValueRepresentable {
    func jsonValue() -> JSONValue { .object(["kind": .string(kind), "value": .string(value)]) }
}

extension CompletionItemData: JSONValueRepresentable {
    func jsonValue() -> JSONValue {
        var object: [String: JSONValue] = ["snippetID": .string(snippetID)]
        if let uri { object["uri"] = .string(uri) }
        return .object(object)
    }
}
