import Foundation
import SnippetsCore
import SnippetsModelClient

/// What `doctor` found, in the shape `--json` prints.
struct DoctorReport: Encodable {
    struct LibraryPathReport: Encodable {
        var path: String
        /// `directory`, `file`, `missing` or `unusable`.
        var kind: String
        var snippets: Int
        var files: Int
    }

    struct Library: Encodable {
        var source: String
        var paths: [LibraryPathReport]
        var snippets: Int
        var files: Int
        var errors: Int
        var warnings: Int
        /// The first few problems, as `check` prints them.
        var problems: [String]
        /// The `check` command line that lists every problem of this library (the same `--library` options).
        var checkCommand: String
    }

    struct Model: Encodable {
        /// `none`, or where the configuration came from: `--model-url` or `settings`.
        var source: String
        var url: String?
        var name: String?
        var reachable: Bool?
        var contextTokens: Int?
        var detail: String
        /// `trusted`, `advisory` or `ignored` (see `ModelRole`), and how it was reached.
        var modelRole: String?
        var qualification: AskResponse.Qualification?
    }

    struct Settings: Encodable {
        var libraries: [String]?
        var maxCompletionItems: Int
        var askMarker: String
        var saveTo: String
        var resolveVariables: String
        var choices: String
        var learning: Bool
        var triggerCharacters: [String]
        /// Every setting in effect by its name (`model.url` for a member of `model`), as the text lists them.
        var inEffect: [String: String]
        /// The names in `inEffect`, in the order the text lists them.
        var order: [String]
        var problems: [String]
    }

    /// Meaning search: the encoder file in use (or why there is none), and how much of the library is embedded.
    struct Meaning: Encodable {
        /// `on` or `off`.
        var state: String
        var encoder: String?
        /// Snippets whose vector is in the cache now (the server embeds the rest in the background).
        var embedded: Int?
        var total: Int?
        var detail: String
    }

    var version: String
    var library: Library
    var model: Model
    var meaning: Meaning
    var settings: Settings
    /// Everything wrong, one line each, with what to do.
    var problems: [String]

    /// How many loading problems the report lists.
    static let listedProblemLimit = 10

    static func make(
        libraryFlags: [String], settingsJSON: JSONValue?, commandLineModel: ModelConfiguration?,
        commandLineRole: ModelRoleSetting = .auto, environment: [String: String]
    ) async -> DoctorReport {
        var initial = ServerSettings(model: commandLineModel)
        initial.modelRole = commandLineRole
        var (settings, settingProblems) = initial.applying(settingsJSON)
        settingProblems += ModelSettings.environmentProblems(settings.model, environment: environment)
        let defaults = LibraryPaths.resolve(flags: libraryFlags, environment: environment)
        let paths = settings.libraries.map { layers in
            LibraryPaths(
                layers: layers.map { layer in
                    var layer = layer
                    layer.path = LibraryPaths.absolute(layer.path, environment: environment)
                    return layer
                },
                source: .setting)
        } ?? defaults
        let loaded = LayerLoading.load(layers: paths.layers)
        var problems: [String] = []

        let disk = DiskFileSystem()
        let pathReports = paths.paths.map { path -> LibraryPathReport in
            let kind: String
            switch disk.item(at: path) {
            case .missing: kind = "missing"
            case .unusable: kind = "unusable"
            case .directory: kind = "directory"
            case .file: kind = "file"
            }
            let inside = loaded.files.filter { $0.path == path || $0.path.hasPrefix(path.hasSuffix("/") ? path : path + "/") }
            return LibraryPathReport(path: path, kind: kind, snippets: inside.reduce(0) { $0 + $1.snippets.count }, files: inside.count)
        }
        for problem in loaded.loaderDiagnostics where DiagnosticCode.pathProblems.contains(problem.code) {
            problems.append(String(DiagnosticsPublisher.advice(for: problem, paths: paths, mentioningDoctor: false).dropFirst("snippets-lsp: ".count)))
        }
        let all = loaded.diagnostics
        let errors = all.filter { $0.severity == .error }.count
        let warnings = all.filter { $0.severity == .warning }.count
        let fileErrors = all.filter { $0.severity == .error && !DiagnosticCode.pathProblems.contains($0.code) }.count
        let check = paths.commandLine("check")
        if fileErrors > 0 {
            problems.append("\(fileErrors) error\(fileErrors == 1 ? "" : "s") in your snippet files: run `\(check)` to see each with its line.")
        }
        if loaded.snippets.isEmpty && pathReports.contains(where: { $0.kind == "directory" || $0.kind == "file" }) {
            problems.append("The library holds no snippets: add \(FormatRegistry.whatToAdd) to \(paths.paths.joined(separator: ", ")).")
        }
        let listed = all.prefix(listedProblemLimit).map { problem in
            "\(DocumentURI(problem.uri).displayPath):\(problem.position.line + 1):\(problem.position.utf8Column + 1): \(problem.severity.rawValue): \(problem.message)"
        }
        let library = Library(
            source: paths.sourceDescription, paths: pathReports, snippets: loaded.snippets.count, files: loaded.files.count,
            errors: errors, warnings: warnings, problems: listed, checkCommand: check)

        let model: Model
        if let configuration = settings.model {
            let source = settings.model == commandLineModel ? "--model-url" : "settings"
            let probe = await OpenAICompatibleModel(configuration: configuration, environment: environment).probe()
            // Measured (or recalled from the cache) only under `auto` and when the server answers.
            var counts: QualificationCounts?
            var demotion: TrustChecks?
            if probe.isReachable && settings.modelRole == .auto {
                let measured = await ModelQualifier.counts(
                    of: configuration, library: loaded, index: TokenIndex(library: loaded), environment: environment, measuring: true)
                counts = measured.counts
                demotion = measured.demotion
                if let problem = measured.cacheProblem { problems.append(problem.prefix(1).uppercased() + problem.dropFirst() + ".") }
            }
            let standing = ModelStanding.resolving(settings.modelRole, qualification: counts, demotedBy: demotion)
            model = Model(
                source: source, url: configuration.baseURL.absoluteString, name: configuration.modelName,
                reachable: probe.isReachable, contextTokens: probe.contextTokens, detail: probe.detail,
                modelRole: standing.role.rawValue, qualification: AskResponse.Qualification(standing))
            if !probe.isReachable {
                problems.append("The model at \(configuration.baseURL.absoluteString) does not answer (\(probe.detail)); asks fall back to the deterministic answer. Start it, or fix the URL.")
            }
        } else {
            model = Model(source: "none", detail: "no model configured: ask answers deterministically from your snippets")
        }
        problems += settingProblems.map(\.message)

        let saveTo: String
        do {
            saveTo = try SaveSelection.destination(settings: settings, layers: paths.layers, environment: environment)
        } catch {
            saveTo = "(cannot save: \(error.message))"
        }
        let libraries = settings.libraries?.map { $0.isNamed ? "\($0.name)=\($0.path)" : $0.path }
        let triggerCharacters = TriggerCharacters.advertised(for: loaded, includingWordCharacters: false)
        let triggerText =
            (triggerCharacters.isEmpty ? "(none besides words)" : triggerCharacters.joined(separator: " "))
            + (loaded.snippets.isEmpty
                ? " (the default set, as the library holds no snippets; Neovim also gets letters, digits and _)"
                : " (Neovim also gets the triggers' letters and digits)")
        let listedSettings = settingsInEffect(settings, shown: [
            "libraries": libraries.map { $0.joined(separator: ", ") } ?? "(not set: the library paths above)",
            "saveTo": saveTo,
        ]) + [(name: "triggerCharacters", value: triggerText)]
        let settingsReport = Settings(
            libraries: libraries, maxCompletionItems: settings.maxCompletionItems, askMarker: settings.askMarker,
            saveTo: saveTo, resolveVariables: settings.resolveVariables.rawValue, choices: settings.choices.rawValue,
            learning: settings.learning, triggerCharacters: triggerCharacters,
            inEffect: Dictionary(listedSettings.map { ($0.name, $0.value) }) { first, _ in first }, order: listedSettings.map(\.name),
            problems: settingProblems.map(\.message))
        let meaning: Meaning
        let (service, offReason) = MeaningSetup.service(environment: environment)
        if let service {
            let embedded = service.cachedCount(of: loaded)
            meaning = Meaning(
                state: "on", encoder: service.encoderPath, embedded: embedded, total: loaded.snippets.count,
                detail: embedded >= loaded.snippets.count
                    ? "every snippet is embedded (cached); ask matches questions by meaning as well as by words"
                    : "\(embedded) of \(loaded.snippets.count) snippets embedded; the server embeds the rest in the background when it starts")
        } else {
            meaning = Meaning(state: "off", detail: offReason ?? MeaningSetup.offReason)
        }
        return DoctorReport(
            version: LanguageServer.serverVersion, library: library, model: model, meaning: meaning, settings: settingsReport,
            problems: problems)
    }

    /// The setting names `settingsInEffect` lists for members of `ModelConfiguration` whose Swift name differs.
    static let modelSettingNames = ["baseURL": "url", "modelName": "name"]

    /// Every setting of `settings` with the value in effect, in declaration order, read from its stored properties,
    /// so a setting added to `ServerSettings` (or to the model's configuration) is listed without a change here.
    /// `shown` gives the text for settings that need more than their value (the libraries, the resolved save file);
    /// `model` is listed member by member (`model.url`, ...), or as none.
    static func settingsInEffect(_ settings: ServerSettings, shown: [String: String]) -> [(name: String, value: String)] {
        var listed: [(name: String, value: String)] = []
        for child in Mirror(reflecting: settings).children {
            guard let name = child.label else { continue }
            if let text = shown[name] {
                listed.append((name, text))
            } else if name == "model" {
                guard let model = settings.model else {
                    listed.append((name, "(none: ask answers from your snippets alone)"))
                    continue
                }
                for member in Mirror(reflecting: model).children {
                    guard let label = member.label else { continue }
                    var text = settingText(member.value)
                    if label == "apiKeyEnvironmentVariable", let variable = model.apiKeyEnvironmentVariable {
                        // A value that does not look like a variable's name may be the key itself, pasted in.
                        text = ModelConfiguration.mentionableKeyVariable(variable) ?? "(set; not shown, it does not look like a variable name)"
                    }
                    listed.append(("model." + (modelSettingNames[label] ?? label), text))
                }
            } else {
                listed.append((name, settingText(child.value)))
            }
        }
        return listed
    }

    /// A setting's value as doctor prints it: an enumeration by its name, a URL as written, nothing as "(not set)".
    static func settingText(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return "(not set)" }
            return settingText(wrapped)
        }
        if let url = value as? URL { return url.absoluteString }
        if let named = value as? any RawRepresentable { return "\(named.rawValue)" }
        return "\(value)"
    }


    func text() -> String {
        var lines = ["snippets-lsp \(version)", "", "Library (\(library.source)):"]
        for path in library.paths {
            switch path.kind {
            case "directory", "file":
                lines.append("  \(path.path): \(path.kind), \(path.snippets) snippet\(path.snippets == 1 ? "" : "s") in \(path.files) file\(path.files == 1 ? "" : "s")")
            default:
                lines.append("  \(path.path): \(path.kind == "missing" ? "does not exist" : "cannot be used")")
            }
        }
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        lines.append(
            "  total: \(count(library.snippets, "snippet")) in \(count(library.files, "file")), \(count(library.errors, "error")), "
                + count(library.warnings, "warning"))
        for problem in library.problems { lines.append("  " + problem) }
        if library.errors + library.warnings > library.problems.count {
            lines.append("  ... run `\(library.checkCommand)` for every problem")
        }
        lines += ["", "Model:"]
        if let url = model.url {
            let name = model.name.map { ", model \($0)" } ?? ""
            lines.append("  \(url)\(name) (from \(model.source)): \(model.reachable == true ? "reachable" : "NOT reachable"), \(model.detail)")
            if let role = model.modelRole, let qualification = model.qualification {
                lines.append("  role: \(role) (\(AskAnswerText.roleDescription(qualification)))")
            }
        } else {
            lines.append("  " + model.detail)
        }
        lines += ["", "Meaning search:"]
        if let encoder = meaning.encoder { lines.append("  encoder: \(encoder)") }
        lines.append("  " + meaning.detail)
        lines += ["", "Editor settings in effect:"]
        let width = max(19, settings.order.map(\.count).max() ?? 0)
        for name in settings.order {
            lines.append("  \(name + String(repeating: " ", count: width - name.count)) \(settings.inEffect[name] ?? "")")
        }
        lines.append("")
        if problems.isEmpty {
            lines.append("No problems found.")
        } else {
            lines.append("Problems:")
            for problem in problems { lines.append("  - " + problem) }
        }
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
