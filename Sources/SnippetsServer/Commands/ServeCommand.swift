/// `snippets-lsp serve` (placeholder until its issue's work lands).
public enum ServeCommand: SnippetsCommand {
    public static let name = "serve"
    public static let summary = "(not yet available)"
    public static let help = "Usage: snippets-lsp serve"

    public static func run(_ context: CommandContext) async -> Int32 {
        context.printError("snippets-lsp serve: not yet available")
        return 2
    }
}
