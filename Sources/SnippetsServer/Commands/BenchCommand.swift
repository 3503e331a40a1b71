/// `snippets-lsp bench` (placeholder until its issue's work lands).
public enum BenchCommand: SnippetsCommand {
    public static let name = "bench"
    public static let summary = "(not yet available)"
    public static let help = "Usage: snippets-lsp bench"

    public static func run(_ context: CommandContext) async -> Int32 {
        context.printError("snippets-lsp bench: not yet available")
        return 2
    }
}
