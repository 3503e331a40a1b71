import Foundation
import SnippetsCore
import SnippetsModelClient

/// `snippets-lsp eval`: runs a probe battery through the ask pipeline and prints the grounding measures.
public enum EvalCommand: SnippetsCommand {
    public static let name = "eval"
    public static let summary = "Run a probe battery through ask and report grounding measures"
    public static let isDeveloperTool = true
    /// `eval`'s own options; the model's follow them.
    static let ownOptions = CommandOptions([
        CommandOption.json(
            "Print one JSON object instead: probes, measures (per kind and overall), invariantsHold."),
    ])
    public static let options = ownOptions + ModelOptions.options
    public static let help = """
        \(CommandOptions.usage("eval", arguments: "BATTERY", [ownOptions, ModelOptions.options]))

        Runs every probe of BATTERY (a JSON file: `library`, a path relative to the battery file, and `probes`,
        each with `id`, `kind`, `question`, `expect` and optional `forbid`) through the same pipeline as `ask`, then
        judges each answer from the result and the library alone, independently of the pipeline's own audit.

        Prints one line per probe and, per kind and overall: grounding (answers whose every citation was retrieved
        and whose ranges cover exactly the title), invented titles, numbers not found in cited snippets,
        forbidden-text leaks, retrieval recall, answer recall, citation precision, abstention (on probes that
        expect nothing), substantive rate (on probes that expect something) and fallback rate; with the encoder,
        how often meaning alone ranks an expected snippet first or in the first three of the whole library
        (meaning@1, meaning@3: what an answer by meaning could at best reach, beside what ask answered).

        Options:
        \(ownOptions.helpText())

        With a language model (the same invariants must hold whatever it says):
        \(ModelOptions.help)

        Exit status: 0 when the hard invariants hold; 1 when grounding is below 100%, a title is invented, a
        number is not in cited evidence, forbidden text leaks, or the battery or its library cannot be read;
        2 for a usage error.
        """

    /// The largest battery file read.
    static let maximumBatterySize = 64 << 20

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        let modelConfiguration: ModelConfiguration?
        let roleSetting: ModelRoleSetting
        do {
            arguments = try options.parse(context.arguments)
            modelConfiguration = try ModelOptions.configuration(from: arguments)
            roleSetting = try ModelOptions.role(from: arguments)
            guard let _ = arguments.positionals.first else { throw ArgumentError.missingArgument("BATTERY") }
            if arguments.positionals.count > 1 { throw ArgumentError.tooManyArguments(Array(arguments.positionals.dropFirst())) }
        } catch {
            context.printError("snippets-lsp eval: \(error)\n\n\(help)")
            return 2
        }
        let batteryPath = LibraryPath.join(FileManager.default.currentDirectoryPath, arguments.positionals[0])
        let battery: ProbeBattery
        let bytes: [UInt8]
        do {
            // Opened without blocking and read only when it is a regular file under the limit: a device or a FIFO
            // is named as such (Foundation called /dev/zero "You don't have permission").
            bytes = try BoundedFileRead.contents(of: batteryPath, maximumSize: Self.maximumBatterySize)
        } catch let error as FileTooLarge {
            context.printError(
                "snippets-lsp eval: cannot read the battery \(batteryPath): it is \(error.size) bytes, over the \(Self.maximumBatterySize)-byte limit")
            return 1
        } catch {
            context.printError("snippets-lsp eval: cannot read the battery \(batteryPath): \(error)")
            return 1
        }
        do {
            battery = try JSONDecoder().decode(ProbeBattery.self, from: Data(bytes))
        } catch {
            context.printError("snippets-lsp eval: cannot read the battery \(batteryPath): \(error.localizedDescription)")
            return 1
        }
        let libraryPath = LibraryPath.join((batteryPath as NSString).deletingLastPathComponent, battery.library)
        let library = LibraryPaths(paths: [libraryPath], source: .flags).load()
        guard !library.snippets.isEmpty else {
            context.printError("snippets-lsp eval: the battery's library \(libraryPath) holds no snippets")
            return 1
        }
        let evaluation: AskEvaluation
        do {
            for warning in ModelOptions.warnings(for: modelConfiguration, environment: context.environment) {
                context.printError("snippets-lsp eval: \(warning)")
            }
            // With `auto` the model is measured on the battery's library first (or recalled from the cache).
            var standing = ModelStanding.unmeasured
            if let modelConfiguration {
                if roleSetting == .auto {
                    let known = await ModelQualifier.counts(
                        of: modelConfiguration, library: library, index: TokenIndex(library: library),
                        environment: context.environment, measuring: true)
                    standing = .resolving(roleSetting, qualification: known.counts, demotedBy: known.demotion)
                } else {
                    standing = .resolving(roleSetting, qualification: nil)
                }
                context.printError("snippets-lsp eval: model role \(standing.role.rawValue) (\(AskAnswerText.roleDescription(AskResponse.Qualification(standing))))")
            }
            evaluation = try await AskEvaluation.run(
                battery, library: library,
                model: ModelOptions.model(for: modelConfiguration, environment: context.environment) { line in
                    context.printError("snippets-lsp eval: \(line)")
                },
                modelStanding: standing, limit: modelConfiguration?.candidates ?? AskRequest.defaultLimit,
                meaningEnvironment: context.environment)
        } catch {
            context.printError("snippets-lsp eval: cancelled")
            return 1
        }
        if arguments.wantsJSON { context.printJSON(evaluation.json()) } else { context.print(evaluation.text()) }
        return evaluation.overall.invariantsHold ? 0 : 1
    }
}
