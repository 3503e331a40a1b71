/// `snippets-lsp check` (placeholder until its issue's work lands).
public enum CheckCommand: SnippetsCommand {
    public static let name = "check"
    public static let summary = "(not yet available)"
    public static let help = "Usage: snippets-lsp check"

    public static func run(_ context: CommandContext) async -> Int32 {
        context.printError("snippets-lsp check: not yet available")
        return 2
    }
}
