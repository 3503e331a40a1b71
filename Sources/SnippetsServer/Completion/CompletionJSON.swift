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
        var object: [String: JSONValue] = ["label": .string(label), "kind": .int(kind.rawValue)]
        object.reserveCapacity(10)
        if let detail { object["detail"] = .string(detail) }
        if let documentation { object["documentation"] = documentation.jsonValue() }
        if let sortText { object["sortText"] = .string(sortText) }
        if let filterText { object["filterText"] = .string(filterText) }
        if let insertTextFormat { object["insertTextFormat"] = .int(insertTextFormat.rawValue) }
        if let insertTextMode { object["insertTextMode"] = .int(insertTextMode.rawValue) }
        if let textEdit { object["textEdit"] = textEdit.jsonValue() }
        if let additionalTextEdits { object["additionalTextEdits"] = .array(additionalTextEdits.map { $0.jsonValue() }) }
        if let data { object["data"] = data.jsonValue() }
        if let labelDetails {
            var details: [String: JSONValue] = [:]
            if let detail = labelDetails.detail { details["detail"] = .string(detail) }
            if let description = labelDetails.description { details["description"] = .string(description) }
            object["labelDetails"] = .object(details)
        }
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

// The completion reply written straight to bytes, keys in byte order, as `serialized()` writes them; checked
// byte for byte against the `Codable` path in `CompletionJSONTests`.

extension CompletionList: JSONBytesWritable {
    func writeJSON(into writer: inout JSONText.Writer) {
        writer.raw(isIncomplete ? "{\"isIncomplete\":true,\"items\":[" : "{\"isIncomplete\":false,\"items\":[")
        for (index, item) in items.enumerated() {
            if index > 0 { writer.raw(",") }
            item.writeJSON(into: &writer)
        }
        writer.raw("]}")
    }
}

extension CompletionItem {
    func writeJSON(into writer: inout JSONText.Writer) {
        // additionalTextEdits, data, detail, documentation, filterText, insertTextFormat, insertTextMode, kind, label,
        // labelDetails, sortText, textEdit
        writer.raw("{")
        if let additionalTextEdits {
            writer.raw("\"additionalTextEdits\":[")
            for (number, edit) in additionalTextEdits.enumerated() {
                writer.raw(number == 0 ? "{\"newText\":" : ",{\"newText\":")
                writer.write(edit.newText)
                writer.raw(",\"range\":")
                edit.range.writeJSON(into: &writer)
                writer.raw("}")
            }
            writer.raw("],")
        }
        if let data {
            writer.raw("\"data\":{\"snippetID\":")
            writer.write(data.snippetID)
            if let uri = data.uri {
                writer.raw(",\"uri\":")
                writer.write(uri)
            }
            writer.raw("},")
        }
        if let detail {
            writer.raw("\"detail\":")
            writer.write(detail)
            writer.raw(",")
        }
        if let documentation {
            writer.raw("\"documentation\":{\"kind\":")
            writer.write(documentation.kind)
            writer.raw(",\"value\":")
            writer.write(documentation.value)
            writer.raw("},")
        }
        if let filterText {
            writer.raw("\"filterText\":")
            writer.write(filterText)
            writer.raw(",")
        }
        if let insertTextFormat {
            writer.raw("\"insertTextFormat\":")
            writer.write(insertTextFormat.rawValue)
            writer.raw(",")
        }
        if let insertTextMode {
            writer.raw("\"insertTextMode\":")
            writer.write(insertTextMode.rawValue)
            writer.raw(",")
        }
        writer.raw("\"kind\":")
        writer.write(kind.rawValue)
        writer.raw(",\"label\":")
        writer.write(label)
        if let labelDetails {
            writer.raw(",\"labelDetails\":{")
            if let description = labelDetails.description {
                writer.raw("\"description\":")
                writer.write(description)
            }
            if let detail = labelDetails.detail {
                if labelDetails.description != nil { writer.raw(",") }
                writer.raw("\"detail\":")
                writer.write(detail)
            }
            writer.raw("}")
        }
        if let sortText {
            writer.raw(",\"sortText\":")
            writer.write(sortText)
        }
        switch textEdit {
        case .insertReplace(let edit):
            writer.raw(",\"textEdit\":{\"insert\":")
            edit.insert.writeJSON(into: &writer)
            writer.raw(",\"newText\":")
            writer.write(edit.newText)
            writer.raw(",\"replace\":")
            edit.replace.writeJSON(into: &writer)
            writer.raw("}")
        case .textEdit(let edit):
            writer.raw(",\"textEdit\":{\"newText\":")
            writer.write(edit.newText)
            writer.raw(",\"range\":")
            edit.range.writeJSON(into: &writer)
            writer.raw("}")
        case nil:
            break
        }
        writer.raw("}")
    }
}

extension LSPRange {
    func writeJSON(into writer: inout JSONText.Writer) {
        writer.raw("{\"end\":{\"character\":")
        writer.write(end.character)
        writer.raw(",\"line\":")
        writer.write(end.line)
        writer.raw("},\"start\":{\"character\":")
        writer.write(start.character)
        writer.raw(",\"line\":")
        writer.write(start.line)
        writer.raw("}}")
    }
}
