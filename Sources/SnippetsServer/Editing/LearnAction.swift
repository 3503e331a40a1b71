import SnippetsCore

/// `snippets.learn` arguments: the question that was asked and the snippet the user inserted from its answer.
public struct LearnArguments: Codable, Hashable, Sendable {
    public var question: String
    /// The snippet's identifier, as in the `snippets/ask` result.
    public var id: String

    public init(question: String, id: String) {
        self.question = question
        self.id = id
    }
}

/// What `snippets.learn` replies.
public struct LearnResult: Codable, Hashable, Sendable {
    public var id: String
    public var title: String
    /// The words newly learned (empty: nothing new; the snippet already holds every content word).
    public var learned: [String]
    /// The learned-words file written; absent when nothing was written.
    public var path: String?
}

/// The command `snippets.learn`: an editor sends it when the user inserts a snippet from an ask's answer, so the
/// question's words count for that snippet from then on (see `LearnedWordsStore`).
enum LearnAction {
    static let command = "snippets.learn"

    /// The longest question learned from (the same bound as an ask's).
    static let questionLength = AskRequest.questionLength

    static func execute(_ arguments: LearnArguments, context: RequestContext) async throws -> LearnResult {
        guard context.isLearning else { throw refusal(LearnError.disabled.description) }
        let question = arguments.question
        guard question.contains(where: { !$0.isWhitespace }), question.unicodeScalars.count <= questionLength.upperBound else {
            throw ResponseError.invalidParams("\(command): question must be 1 to \(questionLength.upperBound) characters")
        }
        let snapshot = context.library
        guard let snippet = snapshot.library.snippet(withID: SnippetID(rawValue: arguments.id)) else {
            throw refusal(LearnError.unknownSnippet(arguments.id).description)
        }
        let layers = context.libraryLayers
        let configured = context.configuration.mayWriteLearnedWords
        let readOnlyLayers = LayerLoading.learnedWordsWriteCheck(layers)
        if let layer = layers.first(where: { $0.name == snippet.layer && $0.isReadOnly }) {
            throw refusal("the library layer '\(layer.name)' (\(layer.path)) is read-only; nothing was learned")
        }
        let outcome: LearnOutcome
        do {
            outcome = try LearnedWordsStore.learn(
                question: question, snippet: snippet, library: snapshot.library, learned: snapshot.learned,
                paths: layers.map(\.path), mayWrite: { target in configured(target) && readOnlyLayers(target) })
        } catch {
            throw refusal(error.description)
        }
        // Taught: the question is no longer a gap.
        if let problem = GapLog(environment: context.configuration.environment).forget(question) {
            await context.log("snippets.learn: \(problem)")
        }
        if outcome.path != nil { _ = await context.reloadAndWait() }
        return LearnResult(id: snippet.id.rawValue, title: snippet.title, learned: outcome.words, path: outcome.path)
    }

    /// A refusal, sent as the error reply and logged for the user.
    static func refusal(_ reason: String) -> ResponseError {
        .requestFailed("Nothing learned: " + reason)
    }
}

/// `snippets.forget` arguments: one lesson to take back, as `snippets.learn` reported it.
public struct ForgetArguments: Codable, Hashable, Sendable {
    /// The snippet's identifier (the `id` of the `snippets.learn` result).
    public var id: String
    /// The question that was learned from; it is no longer a taught question of the snippet.
    public var question: String
    /// The words to forget (the `learned` of the `snippets.learn` result); absent: the question's content words.
    public var words: [String]?

    public init(id: String, question: String, words: [String]? = nil) {
        self.id = id
        self.question = question
        self.words = words
    }
}

/// What `snippets.forget` replies.
public struct ForgetResult: Codable, Hashable, Sendable {
    public var id: String
    public var title: String
    /// How many learned words were removed.
    public var forgotten: Int
    /// Whether the question was a taught question of the snippet and no longer is.
    public var forgotQuestion: Bool
    /// The learned-words file written; absent when there was nothing to forget.
    public var path: String?
}

/// The command `snippets.forget`: an editor's undo of `snippets.learn` (the lesson one insert from an answer
/// taught), so a wrong choice is taken back without `snippets-lsp learn --forget` in a shell.
enum ForgetAction {
    static let command = "snippets.forget"

    static func execute(_ arguments: ForgetArguments, context: RequestContext) async throws -> ForgetResult {
        let question = arguments.question
        guard question.contains(where: { !$0.isWhitespace }), question.unicodeScalars.count <= LearnAction.questionLength.upperBound else {
            throw ResponseError.invalidParams("\(command): question must be 1 to \(LearnAction.questionLength.upperBound) characters")
        }
        let snapshot = context.library
        guard let snippet = snapshot.library.snippet(withID: SnippetID(rawValue: arguments.id)) else {
            throw refusal(LearnError.unknownSnippet(arguments.id).description)
        }
        let layers = context.libraryLayers
        if let layer = layers.first(where: { $0.name == snippet.layer && $0.isReadOnly }) {
            throw refusal("the library layer '\(layer.name)' (\(layer.path)) is read-only")
        }
        let configured = context.configuration.mayWriteLearnedWords
        let readOnlyLayers = LayerLoading.learnedWordsWriteCheck(layers)
        let words = arguments.words ?? QuestionWord.words(in: question).filter { !$0.isCompound }.map { $0.forms[0] }
        let outcome: ForgetOutcome
        do {
            outcome = try LearnedWordsStore.forget(
                words: words, questions: [question], snippet: snippet, library: snapshot.library,
                paths: layers.map(\.path), mayWrite: { target in configured(target) && readOnlyLayers(target) })
        } catch {
            throw refusal(error.description)
        }
        let changed = outcome.removed + outcome.removedQuestions > 0
        if changed { _ = await context.reloadAndWait() }
        let folder = LearnedWords.place(of: snippet, in: snapshot.library, folders: LearnedWordsStore.folders(for: layers.map(\.path)))?.folder
        return ForgetResult(
            id: snippet.id.rawValue, title: snippet.title, forgotten: outcome.removed, forgotQuestion: outcome.removedQuestions > 0,
            path: changed ? folder.map(LearnedWords.filePath(inFolder:)) : nil)
    }

    /// A refusal, sent as the error reply.
    static func refusal(_ reason: String) -> ResponseError {
        .requestFailed("Nothing forgotten: " + reason)
    }
}
