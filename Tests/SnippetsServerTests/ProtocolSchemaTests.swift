import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// The package root, from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A JSON Schema validator for the subset `protocol/` uses: `type` (one or a list), `required`, `properties`,
/// `additionalProperties` (boolean), `items`, `enum`, `minLength`/`maxLength` (code points), `minimum`/`maximum`.
/// Anything else in a schema is a failure, so the schemas cannot use a keyword the tests do not check.
struct JSONSchemaValidator {
    static let knownKeywords: Set<String> = [
        "$schema", "title", "description", "type", "required", "properties", "additionalProperties", "items", "enum",
        "minLength", "maxLength", "minimum", "maximum",
    ]

    let schema: JSONValue

    /// Every violation of the schema in `value`, each as `path: problem`; empty when valid.
    func violations(of value: JSONValue) -> [String] {
        var problems: [String] = []
        check(value, against: schema, path: "$", problems: &problems)
        return problems
    }

    private func check(_ value: JSONValue, against schema: JSONValue, path: String, problems: inout [String]) {
        guard let rules = schema.objectValue else {
            problems.append("\(path): schema is not an object")
            return
        }
        for keyword in rules.keys where !Self.knownKeywords.contains(keyword) {
            problems.append("\(path): unsupported keyword \(keyword)")
        }
        if let type = rules["type"] {
            let allowed = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
            if !allowed.contains(where: { Self.matches(value, type: $0) }) {
                problems.append("\(path): expected \(allowed.joined(separator: " or ")), found \(Self.typeName(of: value))")
                return
            }
        }
        if let options = rules["enum"]?.arrayValue, !options.contains(value) {
            problems.append("\(path): \(value.stringValue ?? "value") is not one of the allowed values")
        }
        if let text = value.stringValue {
            let length = text.unicodeScalars.count
            if let minimum = rules["minLength"]?.intValue, length < minimum { problems.append("\(path): shorter than \(minimum)") }
            if let maximum = rules["maxLength"]?.intValue, length > maximum { problems.append("\(path): longer than \(maximum)") }
        }
        if let number = value.intValue {
            if let minimum = rules["minimum"]?.intValue, number < minimum { problems.append("\(path): below \(minimum)") }
            if let maximum = rules["maximum"]?.intValue, number > maximum { problems.append("\(path): above \(maximum)") }
        }
        if let members = value.objectValue {
            let properties = rules["properties"]?.objectValue ?? [:]
            for name in rules["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
                problems.append("\(path): missing required \(name)")
            }
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                if let propertySchema = properties[name] {
                    check(member, against: propertySchema, path: "\(path).\(name)", problems: &problems)
                } else if rules["additionalProperties"] == .bool(false) {
                    problems.append("\(path): unexpected property \(name)")
                }
            }
        }
        if let elements = value.arrayValue, let itemSchema = rules["items"] {
            for (index, element) in elements.enumerated() {
                check(element, against: itemSchema, path: "\(path)[\(index)]", problems: &problems)
            }
        }
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch type {
        case "object": value.objectValue != nil
        case "array": value.arrayValue != nil
        case "string": value.stringValue != nil
        case "integer": value.intValue != nil
        case "number": if case .double = value { true } else { value.intValue != nil }
        case "boolean": value.boolValue != nil
        case "null": value == .null
        default: false
        }
    }

    static func typeName(of value: JSONValue) -> String {
        ["object", "array", "string", "integer", "number", "boolean", "null"].first { matches(value, type: $0) } ?? "?"
    }

    /// The validator for `protocol/NAME`.
    static func load(_ name: String) throws -> JSONSchemaValidator {
        let bytes = try [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("protocol/\(name)")))
        return JSONSchemaValidator(schema: try JSONValue.parse(bytes))
    }
}

/// Every example in `protocol/examples` (name and parsed content).
func protocolExamples() throws -> [(name: String, json: JSONValue)] {
    let folder = packageRoot.appendingPathComponent("protocol/examples")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("snippets-ask.") }.sorted()
    return try names.map { name in (name, try JSONValue.parse([UInt8](Data(contentsOf: folder.appendingPathComponent(name))))) }
}

/// The `snippets/ask` contract in `protocol/` against the code: examples decode, re-encode unchanged and validate;
/// real results validate; the schemas' enums are the code's.
@Suite struct ProtocolSchemaTests {
    let params = try! JSONSchemaValidator.load("snippets-ask.params.schema.json")
    let result = try! JSONSchemaValidator.load("snippets-ask.result.schema.json")

    @Test func examplesDecodeReencodeAndValidate() throws {
        let examples = try protocolExamples()
        #expect(examples.count >= 7)
        var statuses: Set<String> = []
        for (name, example) in examples {
            let exampleParams = try #require(example["params"], "\(name) has params")
            #expect(params.violations(of: exampleParams).isEmpty == (example["error"] == nil), "\(name): \(params.violations(of: exampleParams))")
            let decodedParams = try exampleParams.decode(AskParams.self)
            if let error = example["error"] {
                #expect(error["code"]?.intValue == -32602, "\(name)")
                #expect(throws: ResponseError.invalidParams(try #require(error["message"]?.stringValue))) {
                    try decodedParams.request(language: nil)
                }
                continue
            }
            _ = try decodedParams.request(language: nil)
            let exampleResult = try #require(example["result"], "\(name) has a result")
            #expect(result.violations(of: exampleResult) == [], "\(name)")
            let decoded = try exampleResult.decode(AskResponse.self)
            #expect(try JSONValue(encoding: decoded) == exampleResult, "\(name) re-encodes unchanged")
            let answer = Array(decoded.answer.utf16)
            for citation in decoded.citations {
                #expect(String(decoding: answer[citation.answerRange.start..<citation.answerRange.end], as: UTF16.self) == citation.title, "\(name)")
                if let quote = citation.quote {
                    #expect(String(decoding: answer[quote.answerRange.start..<quote.answerRange.end], as: UTF16.self) == quote.text, "\(name)")
                    #expect(quote.location.range.end.character - quote.location.range.start.character == quote.text.utf16.count, "\(name)")
                }
            }
            #expect((decoded.reason == nil) == (decoded.status == "answered"), "\(name)")
            statuses.insert(decoded.status)
        }
        #expect(statuses == Set(AskStatus.allCases.map(\.rawValue)), "an example for every status")
    }

    @Test func schemaEnumsAreTheCodes() throws {
        let properties = try #require(result.schema["properties"])
        #expect(properties["status"]?["enum"] == .array(AskStatus.allCases.map { .string($0.rawValue) }))
        #expect(properties["reason"]?["properties"]?["code"]?["enum"] == .array(AskReasonCode.allCases.map { .string($0.rawValue) }))
        #expect(properties["reason"]?["properties"]?["failedRules"]?["items"]?["enum"] == .array(AuditRule.allCases.map { .string($0.rawValue) }))
        #expect(params.schema["properties"]?["question"]?["maxLength"]?.intValue == AskRequest.questionLength.upperBound)
        #expect(params.schema["properties"]?["limit"]?["maximum"]?.intValue == AskRequest.maximumLimit)
        #expect(properties["modelRole"]?["enum"] == .array(ModelRole.allCases.map { .string($0.rawValue) }))
        #expect(properties["qualification"]?["properties"]?["basis"]?["enum"] == .array(ModelStanding.Basis.allCases.map { .string($0.rawValue) }))
    }

    @Test func realResultsValidateInEveryEncoding() async throws {
        let library = LibraryPaths(paths: [packageRoot.appendingPathComponent("examples/library").path], source: .flags).load()
        #expect(library.snippets.count >= 15)
        let questions = [
            "what's my postal address?", "how do I retry a network call?", "recipe for banana bread", "what is my passport number?",
            "which snippet?", "what did the vendor say?", "which snippet has my Tokyo office address?", "how many retries with backoff",
        ]
        var results: [AskResult] = []
        let pipeline = AskPipeline(library: library, sources: FileSystemSnippetSources(fileSystem: DiskFileSystem()))
        for question in questions { results.append(try await pipeline.answer(AskRequest(question: question))) }
        #expect(results.contains { $0.citations.contains { $0.quote != nil } }, "real results quote")
        results.append(try await AskPipeline(library: SnippetLibrary(files: [], searchedPaths: ["/nowhere"])).answer(AskRequest(question: "x y")))
        for ask in results {
            for encoding in PositionEncoding.allCases {
                let json = try JSONValue(encoding: AskResponse(ask, encoding: encoding, library: library))
                #expect(result.violations(of: json) == [], "\(ask.answer)")
            }
        }
        #expect(Set(results.map(\.status)) == [.answered, .noMatch, .emptyLibrary])
    }

    @Test func validatorRejectsWhatTheSchemaForbids() throws {
        #expect(params.violations(of: ["question": ""]) == ["$.question: shorter than 1"])
        #expect(params.violations(of: ["question": .string(String(repeating: "é", count: 1001))]) == ["$.question: longer than 1000"])
        #expect(params.violations(of: ["question": "ok", "limit": 0]) == ["$.limit: below 1"])
        #expect(params.violations(of: ["limit": 3]) == ["$: missing required question"])
        #expect(result.violations(of: ["status": "maybe", "answer": "a", "searchTerms": [], "citations": [], "candidates": [], "extra": 1])
                == ["$: unexpected property extra", "$.status: maybe is not one of the allowed values"])
        #expect(result.violations(of: ["status": "answered", "answer": "a", "searchTerms": [1], "citations": [], "candidates": []])
                == ["$.searchTerms[0]: expected string, found integer"])
    }

    @Test func invalidParamsAreRejectedWithAMessage() throws {
        let cases: [(AskParams, String)] = [
            (AskParams(question: ""), "question must not be empty"),
            (AskParams(question: "   "), "question must not be empty"),
            (AskParams(question: String(repeating: "a", count: 1001)), "question is 1001 characters long; the most is 1000"),
            (AskParams(question: "ok", limit: 0), "limit must be between 1 and 50"),
            (AskParams(question: "ok", limit: 51), "limit must be between 1 and 50"),
            (AskParams(question: "ok", position: Position(line: 0, character: 0)), "'position' needs 'textDocument'"),
        ]
        for (params, message) in cases {
            #expect(throws: ResponseError.invalidParams("snippets/ask: \(message)")) { try params.request(language: nil) }
        }
        #expect(try AskParams(question: String(repeating: "é", count: 1000)).request(language: "swift").language == "swift")
    }
}
