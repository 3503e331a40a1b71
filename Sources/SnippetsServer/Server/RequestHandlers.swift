extension RequestHandlerRegistry {
    /// Every request the server answers besides `initialize` and `shutdown`. Add a handler with one line here.
    public static var standard: RequestHandlerRegistry {
        var registry = RequestHandlerRegistry()
        registry.register(CompletionHandler.self)
        registry.register(CompletionResolveHandler.self)
        registry.register(AskHandler.self)
        registry.register(SnippetTextHandler.self)
        registry.register(CodeActionHandler.self)
        registry.register(CodeActionResolveHandler.self)
        registry.register(ExecuteCommandHandler.self)
        registry.register(StatsHandler.self)
        registry.register(VerifyCitationsHandler.self)
        return registry
    }
}
