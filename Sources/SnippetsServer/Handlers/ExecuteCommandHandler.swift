import SnippetsCore

/// `workspace/executeCommand`: `snippets.ask` (answer shown with `window/showMessage`, the best cited snippet
/// inserted when a range is given), `snippets.saveSelection`, `snippets.learn` and `snippets.forget`. See
/// `protocol/snippets-commands.md`.
public enum ExecuteCommandHandler: RequestHandler {
    public static let method = "workspace/executeCommand"
    public static var serverCapabilities: ServerCapabilities {
        ServerCapabilities(executeCommandProvider: ExecuteCommandOptions(commands: [AskAction.command, SaveSelection.command, LearnAction.command, ForgetAction.command]))
    }

    /// `snippets.ask` runs beside the in-order queue (it may wait on a model); saving stays in order.
    public static func runsConcurrently(_ params: ExecuteCommandParams, context: RequestContext) -> Bool {
        params.command == AskAction.command
    }

    public static func handle(_ params: ExecuteCommandParams, context: RequestContext) async throws -> JSONValue {
        let argument = params.arguments?.first ?? .null
        switch params.command {
        case AskAction.command:
            return try JSONValue(encoding: try await AskAction.execute(decode(argument, params.command), context: context))
        case SaveSelection.command:
            return try JSONValue(encoding: try await SaveSelection.execute(decode(argument, params.command), context: context))
        case LearnAction.command:
            return try JSONValue(encoding: try await LearnAction.execute(decode(argument, params.command), context: context))
        case ForgetAction.command:
            return try JSONValue(encoding: try await ForgetAction.execute(decode(argument, params.command), context: context))
        default:
            throw ResponseError.invalidParams("workspace/executeCommand: unknown command '\(params.command)'")
        }
    }

    private static func decode<Arguments: Decodable>(_ argument: JSONValue, _ command: String) throws -> Arguments {
        do {
            return try argument.decode(Arguments.self)
        } catch {
            throw ResponseError.invalidParams("\(command): \(ResponseError.from(error).message)")
        }
    }
}
