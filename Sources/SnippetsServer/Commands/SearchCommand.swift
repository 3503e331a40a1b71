/// `snippets-lsp search` (placeholder until its issue's work lands).
public enum SearchCommand: SnippetsCommand {
    public static let name = "search"
    public static let summary = "(not yet available)"
    public static let help = "Usage: snippets-lsp search"

    public static func run(_ context: CommandContext) async -> Int32 {
        context.printError("snippets-lsp search: not yet available")
        return 2
    }
}
