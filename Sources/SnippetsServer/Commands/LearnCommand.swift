import Foundation
import SnippetsCore

/// `snippets-lsp learn`: records (or forgets) the words of a question as a snippet's learned words.
public enum LearnCommand: SnippetsCommand {
    public static let name = "learn"
    public static let summary = "Teach ask that a question's words mean a snippet (or --forget them)"
    public static let options = CommandOptions([
        CommandOption(
            "--snippet", value: .text(placeholder: "SNIPPET"),
            help: "The snippet: its identifier (as in `ask --json`), its title, or its trigger."),
        LibraryOptions.library,
        CommandOption("--forget", help: "Remove learned words (see above)."),
        CommandOption.json(
            "Print what was done as JSON."),
    ])
    public static let help = """
        Usage: snippets-lsp learn QUESTION --snippet SNIPPET [--library PATH]...
               snippets-lsp learn --forget [QUESTION] [--snippet SNIPPET] [--library PATH]...

        Records the question's content words that the snippet does not already contain as that snippet's learned
        words, and the question itself, in the file \(LearnedWords.fileName) of the library folder that holds the
        snippet. From then on ask counts them like the snippet's description, so the same question (whatever words
        it taught), and others sharing its distinctive words, are answered without a model. Completion by trigger
        never uses them. Snippet files are never changed.

        --forget removes learned words instead:
          --forget --snippet S            every word learned for S;
          --forget QUESTION               the question's words and the question, from every snippet that learned them;
          --forget QUESTION --snippet S   the question's words and the question, from S only.
        Learned-words files in read-only layers are left as they are, and named when they hold such words.

        Options:
        \(options.helpText())

        Exit status: 0 when done (also when there was nothing new to learn), 1 when refused (unknown or ambiguous
        snippet, a snippet outside the library folders, an unreadable learned-words file), 2 for a usage error.
        """

    public static func run(_ context: CommandContext) async -> Int32 {
        let arguments: ParsedArguments
        do {
            arguments = try options.parse(context.arguments)
        } catch {
            context.printError("snippets-lsp learn: \(error)\n\n\(help)")
            return 2
        }
        let question = arguments.positionals.joined(separator: " ").trimmingWhitespace()
        let forgetting = arguments.has("--forget")
        let snippetName = arguments.value("--snippet")
        if !forgetting && (question.isEmpty || snippetName == nil) {
            context.printError("snippets-lsp learn: \(question.isEmpty ? "missing QUESTION" : "missing --snippet")\n\n\(help)")
            return 2
        }
        if forgetting && question.isEmpty && snippetName == nil {
            context.printError("snippets-lsp learn: --forget needs a QUESTION, a --snippet, or both\n\n\(help)")
            return 2
        }
        let layers = LibraryOptions.paths(from: arguments, environment: context.environment).layers
        let paths = layers.map(\.path)
        let library = LayerLoading.load(layers: layers)
        let mayWrite = LayerLoading.learnedWordsWriteCheck(layers)
        do {
            let snippet = try snippetName.map { name throws(LearnError) in try LearnedWordsStore.snippet(named: name, in: library) }
            if forgetting {
                let outcome = try LearnedWordsStore.forget(
                    question: question.isEmpty ? nil : question, snippet: snippet, library: library, paths: paths,
                    mayWrite: mayWrite)
                let removed = outcome.removed
                if arguments.wantsJSON {
                    let left: [JSONValue] = outcome.leftReadOnly.map { .object(["file": .string($0.path), "words": .int($0.words)]) }
                    context.printJSON(encoding: JSONValue.object(["forgotten": .int(removed), "leftReadOnly": .array(left)]))
                } else {
                    context.print(removed == 0 ? "Nothing to forget." : "Forgot \(removed) learned word\(removed == 1 ? "" : "s").")
                    for file in outcome.leftReadOnly {
                        context.print("Left \(file.words) learned word\(file.words == 1 ? "" : "s") in \(file.path): it is in a read-only library layer.")
                    }
                }
                return 0
            }
            guard let snippet else { return 2 }
            let learned = LearnedWordsStore.load(paths: paths, library: library)
            let outcome = try LearnedWordsStore.learn(
                question: question, snippet: snippet, library: library, learned: learned, paths: paths, mayWrite: mayWrite)
            // Taught: the question is no longer a gap.
            if let problem = GapLog(environment: context.environment).forget(question) {
                context.printError("snippets-lsp learn: \(problem)")
            }
            if arguments.wantsJSON {
                let json: JSONValue = .object([
                    "snippet": .string(snippet.id.rawValue), "title": .string(snippet.title),
                    "learned": .array(outcome.words.map(JSONValue.string)), "file": outcome.path.map(JSONValue.string) ?? .null,
                ])
                context.printJSON(encoding: json)
            } else if outcome.words.isEmpty, let path = outcome.path {
                // Its words are all the snippet's own; the question itself is kept, so asking it again names it.
                context.print("\"\(snippet.title)\" learned this question (in \(path)).")
            } else if outcome.words.isEmpty {
                context.print("Nothing new to learn: \"\(snippet.title)\" already has every content word of the question.")
            } else {
                context.print("\"\(snippet.title)\" learned: \(outcome.words.joined(separator: ", ")) (in \(outcome.path ?? "")).")
            }
            return 0
        } catch {
            context.printError("snippets-lsp learn: \(error)")
            return 1
        }
    }
}
