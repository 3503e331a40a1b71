import Foundation
import SnippetsCore
import Testing

@testable import SnippetsServer

/// Settings from `initializationOptions` and `workspace/didChangeConfiguration`.
struct SettingsTests {
    @Test(arguments: [
        ["maxCompletionItems": 7] as JSONValue,
        ["snippets": ["maxCompletionItems": 7]],
        ["settings": ["snippets": ["maxCompletionItems": 7]]],
    ])
    func everyShapeIsAccepted(json: JSONValue) {
        let (settings, problems) = ServerSettings().applying(json)
        #expect(settings.maxCompletionItems == 7)
        #expect(problems.isEmpty)
    }

    @Test func absentKeysKeepTheirValueAndNullSettingsChangeNothing() {
        let current = ServerSettings(libraries: ["/x"], maxCompletionItems: 9, resolveVariables: .never)
        #expect(current.applying(["resolveVariables": "always"]).settings
            == ServerSettings(libraries: ["/x"], maxCompletionItems: 9, resolveVariables: .always))
        #expect(current.applying(.null).settings == current)
        #expect(current.applying(["settings": .null]).settings == current)
    }

    @Test func anEnumeratedSettingNamesEveryValueItTakes() {
        let (_, problems) = ServerSettings().applying(["resolveVariables": "sometimes", "choices": 3])
        #expect(Set(problems.map(\.message)) == [
            "setting 'snippets.resolveVariables' must be \"auto\", \"always\" or \"never\"; using the default \"auto\"",
            "setting 'snippets.choices' must be \"auto\", \"keep\" or \"firstOption\"; using the default \"auto\"",
        ])
    }

    @Test(arguments: [
        ("maxCompletionItems", "lots"),
        ("maxCompletionItems", 0),
        ("resolveVariables", "sometimes"),
        ("choices", "first"),
        ("libraries", "/not/an/array"),
        ("libraries", [1, 2]),
    ] as [(String, JSONValue)])
    func invalidValuesAreNamedAndFallBackToTheDefault(name: String, value: JSONValue) {
        let (settings, problems) = ServerSettings(libraries: ["/x"], maxCompletionItems: 9).applying(.object([name: value]))
        #expect(problems.map(\.name) == [name])
        #expect(problems.first?.message.contains("default") == true)
        let defaults = ServerSettings()
        switch name {
        case "maxCompletionItems": #expect(settings.maxCompletionItems == defaults.maxCompletionItems)
        case "resolveVariables": #expect(settings.resolveVariables == .auto)
        case "choices": #expect(settings.choices == .auto)
        default: #expect(settings.libraries == nil)
        }
    }

    @Test(arguments: [JSONValue.int(Int.max), .int(1001), .double(1e308), .double(18446744073709551616.0)])
    func aHugeMaxCompletionItemsIsClampedWithAWarning(value: JSONValue) {
        let (settings, problems) = ServerSettings().applying(["maxCompletionItems": value])
        #expect(settings.maxCompletionItems == ServerSettings.maxCompletionItemsRange.upperBound)
        #expect(problems.map(\.name) == ["maxCompletionItems"])
    }

    @Test func hugeModelNumbersAreClampedToTheirMostWithAWarning() throws {
        let (settings, problems) = ServerSettings().applying([
            "model": ["url": "http://127.0.0.1:8080", "timeoutSeconds": .int(Int.max), "candidates": .double(1e300)]])
        let model = try #require(settings.model)
        #expect(model.timeoutSeconds == 600 && model.candidates == 50)
        #expect(problems.map(\.name) == ["model.timeoutSeconds", "model.candidates"])
    }

    @Test func positionsFromAClientAreClampedToLSPsRange() throws {
        let decoded = try JSONValueDecoder.decode(
            [Position].self,
            from: [["line": .int(Int.max), "character": .int(Int.min)], ["line": .double(1e300), "character": .int(-1)]])
        #expect(decoded == [Position(line: Position.maximumComponent, character: 0), Position(line: Position.maximumComponent, character: 0)])
        #expect(throws: (any Error).self) { try JSONValueDecoder.decode(Position.self, from: ["line": .double(1.5), "character": 0]) }
    }

    @Test func invalidSettingShowsAWarningNamingIt() async throws {
        let client = TestClient()
        try await client.initialize(options: ["snippets": ["maxCompletionItems": "lots"]])
        let message = try #require(await client.notification("window/showMessage"))
        #expect(message["type"] == 2)
        let text = try #require(message["message"]?.stringValue)
        #expect(text.contains("maxCompletionItems"))
        #expect(text.contains("default 50"))

        client.notify("workspace/didChangeConfiguration", ["settings": ["resolveVariables": "sometimes"]])
        let second = try #require(await client.notification("window/showMessage"))
        #expect(second["message"]?.stringValue?.contains("resolveVariables") == true)
    }

    @Test func changingLibrariesReloadsFromTheNewPaths() async throws {
        let client = TestClient()
        try await client.initialize()
        #expect(await client.server.snapshot.library.searchedPaths == ["/lib"])
        client.notify("workspace/didChangeConfiguration", ["settings": ["snippets": ["libraries": ["/elsewhere"]]]])
        try await client.nextLoad()
        #expect(await client.server.snapshot.library.searchedPaths == ["/elsewhere"])
    }
}

/// The VS Code extension's manifest (`editors/vscode/package.json`) offers exactly the settings the server declares
/// (`ServerSettings.declarations`), with the same defaults, choices and minimums: a setting added on one side only
/// would be one VS Code users cannot set, or one the server ignores.
struct SettingsManifestTests {
    /// What only the extension reads (the binary it starts).
    static let clientOnly: Set<String> = ["serverPath"]

    @Test func theVSCodeManifestOffersEveryDeclaredSettingAsDeclared() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let manifest = try JSONValue.parse(Array(Data(contentsOf: root.appendingPathComponent("editors/vscode/package.json"))))
        let properties = try #require(manifest["contributes"]?["configuration"]?["properties"]?.objectValue)
        var offered: [String: JSONValue] = [:]
        for (name, property) in properties where name.hasPrefix("snippets.") {
            offered[String(name.dropFirst("snippets.".count))] = property
        }
        let declared = Dictionary(uniqueKeysWithValues: ServerSettings.declarations.map { ($0.key, $0) })
        #expect(Set(offered.keys).subtracting(Self.clientOnly) == Set(declared.keys))
        for (key, setting) in declared {
            guard let property = offered[key] else { continue }
            #expect(property["default"] ?? .null == setting.defaultValue, "snippets.\(key): default")
            #expect(property["enum"]?.arrayValue?.compactMap(\.stringValue) == setting.choices, "snippets.\(key): choices")
            #expect(property["minimum"]?.intValue == setting.minimum, "snippets.\(key): minimum")
        }
    }

    @Test func everyDeclaredDefaultIsWhatUnsetSettingsHold() {
        // Applying each default changes nothing and reports nothing.
        for setting in ServerSettings.declarations where setting.defaultValue != .null {
            let (settings, problems) = ServerSettings().applying([setting.key: setting.defaultValue])
            #expect(settings == ServerSettings(), "snippets.\(setting.key)")
            #expect(problems.isEmpty, "snippets.\(setting.key): \(problems)")
        }
    }
}
