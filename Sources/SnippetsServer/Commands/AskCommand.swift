/// `snippets-lsp ask` (placeholder until its issue's work lands).
public enum AskCommand: SnippetsCommand {
    public static let name = "ask"
    public static let summary = "(not yet available)"
    public static let help = "Usage: snippets-lsp ask"

    public static func run(_ context: CommandContext) async -> Int32 {
        context.printError("snippets-lsp ask: not yet available")
        return 2
    }
}
