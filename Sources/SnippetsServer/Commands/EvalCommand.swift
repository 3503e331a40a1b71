/// `snippets-lsp eval` (placeholder until its issue's work lands).
public enum EvalCommand: SnippetsCommand {
    public static let name = "eval"
    public static let summary = "(not yet available)"
    public static let help = "Usage: snippets-lsp eval"

    public static func run(_ context: CommandContext) async -> Int32 {
        context.printError("snippets-lsp eval: not yet available")
        return 2
    }
}
