/// The stable, machine-readable name of every problem the library can report (`LibraryDiagnostic.code`,
/// `SnippetBodyProblem.code`).
///
/// The raw value is what users and clients see: the `code` of an LSP diagnostic, of `check --json`, and the word
/// `check` prints. Raw values never change once published; adding a problem is one case here.
public enum DiagnosticCode: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    // MARK: Library paths and files (`LibraryLoader`)

    /// A library path (or a path a `package.json` names) that does not exist.
    case missingPath = "missing-path"
    /// A path that exists but cannot be used (a symlink loop, a device, a dangling link).
    case unusablePath = "unusable-path"
    /// A file or directory that could not be read.
    case unreadable = "unreadable"
    /// A file the loader was told to read that is not there.
    case missingFile = "missing-file"
    /// A file over the loader's size limit, not read.
    case fileTooLarge = "file-too-large"
    /// A UTF-16 file, which snippet files may not be.
    case utf16File = "utf16-file"
    /// A file holding NUL bytes or invalid UTF-8.
    case binaryFile = "binary-file"
    /// A `package.json` without `contributes.snippets`.
    case noSnippets = "no-snippets"
    /// A file a `package.json` names whose format the loader does not read.
    case unknownFormat = "unknown-format"
    /// A file or directory already read through another path.
    case alreadyLoaded = "already-loaded"
    /// A directory that leads back to one containing it.
    case symlinkLoop = "symlink-loop"
    /// A `NAME=PATH` layer name that was changed or refused.
    case layerName = "layer-name"

    // MARK: Snippet files (the format readers)

    /// A JSON file that does not parse.
    case jsonSyntax = "json-syntax"
    /// A value of the wrong JSON type.
    case wrongType = "wrong-type"
    /// The same key twice in one JSON object.
    case duplicateKey = "duplicate-key"
    /// Two snippets of one file with the same trigger in the same scope.
    case duplicatePrefix = "duplicate-prefix"
    /// A snippet without a body.
    case missingBody = "missing-body"
    /// A snippet whose body is empty.
    case emptyBody = "empty-body"
    /// A key a snippet entry may not have; it is ignored.
    case unknownKey = "unknown-key"
    /// A SnipMate `snippet` line without a trigger.
    case malformedHeader = "malformed-header"
    /// A SnipMate line outside any snippet.
    case unexpectedLine = "unexpected-line"
    /// A SnipMate `priority` that is not a whole number.
    case badPriority = "bad-priority"
    /// A SnipMate snippet that replaces one of a lower priority.
    case snippetOverride = "snippet-override"
    /// A SnipMate backtick expression, never run.
    case backtickExpression = "backtick-expression"
    /// A SnipMate backtick expression that is never closed.
    case unterminatedBacktick = "unterminated-backtick"
    /// A SnipMate `$` that no number or `VISUAL` follows (`$this`): vim-snipmate drops it, the server keeps it.
    case snipmateDollar = "snipmate-dollar"
    /// The count of a body's problems past the first 50.
    case moreBodyProblems = "more-body-problems"

    // MARK: Snippet bodies (`SnippetBody.parse`)

    /// `${1:` without its closing `}`.
    case unterminatedPlaceholder = "unterminated-placeholder"
    /// `${NAME:` without its closing `}`.
    case unterminatedVariable = "unterminated-variable"
    /// `${1|a,b` without the closing `|}`.
    case unterminatedChoice = "unterminated-choice"
    /// `${1||}` or an empty option such as `${1|a,,b|}`.
    case emptyChoice = "empty-choice"
    /// `${1/…` or `${NAME/…` that is not `/regex/format/options}` with known options.
    case invalidTransform = "invalid-transform"
    /// A transform whose regular expression JavaScript's `RegExp` rejects: VS Code and Helix insert the whole
    /// construct as literal text, and so does the server.
    case invalidRegex = "invalid-regex"
    /// A transform whose regular expression backtracks super-linearly (`(a|a)*`, `(a+)+`): an editor runs it without
    /// limits and can hang on a long placeholder; the server runs it under `RegexBudget`.
    case backtrackingRegex = "backtracking-regex"
    /// `${0|a,b|}`: VS Code takes no choice on the final tabstop and inserts the construct as literal text.
    case choiceOnFinalTabstop = "choice-on-final-tabstop"
    /// `${` followed by something other than a tabstop number or a variable name, or `${1` followed by junk.
    case invalidPlaceholder = "invalid-placeholder"
    /// `${NAME` followed by something other than `}`, `:` or `/`.
    case invalidVariable = "invalid-variable"
    /// A variable that neither LSP nor VS Code defines.
    case unknownVariable = "unknown-variable"
    /// Placeholders nested deeper than the parser follows.
    case nestingTooDeep = "nesting-too-deep"

    // MARK: The library as a whole (`LibraryConflicts`)

    /// Two snippets of different files or layers with the same trigger in the same scope.
    case triggerConflict = "trigger-conflict"
    /// Two snippets with the same body.
    case duplicateBody = "duplicate-body"

    // MARK: UltiSnips (`Formats/UltiSnips`, named there as `UltiSnipsCode`)

    /// Python, Vim script or shell interpolation in a body: never run; says what stands in for it.
    case ultiSnipsCode = "ultisnips-code"
    /// `global !p … endglobal`: never run.
    case ultiSnipsGlobal = "ultisnips-global"
    /// `context`, `pre_expand`, `post_expand`, `post_jump`, `post_finish` and the `e` option's expression: never run.
    case ultiSnipsAction = "ultisnips-action"
    /// An option a language server cannot honour as UltiSnips does (`A`, `r` without a literal prefix, `t`, `s`).
    case ultiSnipsOption = "ultisnips-option"
    /// A transformation whose Python regular expression or format means something else in LSP: kept as text.
    case ultiSnipsTransformation = "ultisnips-transformation"
    /// `clearsnippets`: what it removed.
    case ultiSnipsClear = "ultisnips-clearsnippets"
    /// A `snippet` without its `endsnippet`.
    case missingEndSnippet = "missing-endsnippet"

    // MARK: yasnippet (`Formats/Yasnippet`)

    /// A backquoted Emacs Lisp expression in a template: never run; replaced by its LSP meaning (`YasnippetLisp`) or
    /// left out.
    case emacsLispBackquote = "emacs-lisp-backquote"
    /// A mirror transformation that names no field of the snippet: left out, as yasnippet inserts nothing for it.
    case emacsLispMirror = "emacs-lisp-mirror"
    /// A field's Emacs Lisp transformation: never run; the field keeps the text typed in it.
    case emacsLispField = "emacs-lisp-field"
    /// A field that chooses with `yas-choose-value`: not run, offered as an LSP choice.
    case yasnippetChoice = "yasnippet-choice"
    /// `$>` (indent this line): left out, since the editor indents inserted lines itself.
    case yasnippetIndentMarker = "yasnippet-indent-marker"
    /// `# condition:` is Emacs Lisp: never run; the snippet is offered wherever its language is.
    case emacsLispCondition = "emacs-lisp-condition"
    /// `# expand-env:` is Emacs Lisp: never run; the snippet expands without those bindings.
    case emacsLispExpandEnv = "emacs-lisp-expand-env"
    /// `# type: command`: the template is Emacs Lisp to run, so the file gives no snippet.
    case yasnippetCommand = "yasnippet-command"
    /// `# binding:` is an Emacs key binding; completion offers the snippet instead.
    case yasnippetBinding = "yasnippet-binding"
    /// A yasnippet header this reader does not know (yasnippet warns too).
    case unknownDirective = "unknown-directive"
    /// A `# type:` other than `snippet` or `command`: read as a snippet.
    case unknownSnippetType = "unknown-snippet-type"

    // MARK: espanso (`Formats/Espanso`) and its YAML

    /// YAML that does not parse: an error in an espanso match file, a note for other YAML files.
    case yamlSyntax = "yaml-syntax"
    /// An espanso match file whose top level is not a mapping.
    case espansoNotAMapping = "espanso-not-a-mapping"
    /// `imports` that is not a list of file paths.
    case espansoImports = "espanso-imports"
    /// An import outside the espanso folder: not read.
    case espansoImportOutside = "espanso-import-outside"
    /// An import that could not be read.
    case espansoImportUnreadable = "espanso-import-unreadable"
    /// `vars` or `global_vars` that is not a list of `{name, type, params}`.
    case espansoVars = "espanso-vars"
    /// `matches` that is not a list.
    case espansoMatches = "espanso-matches"
    /// An entry of `matches` that is not a mapping.
    case espansoMatch = "espanso-match"
    /// A key an espanso match does not have: ignored.
    case espansoUnknownKey = "espanso-unknown-key"
    /// `triggers` that is not a list: the match is skipped, as espanso refuses it.
    case espansoTriggers = "espanso-triggers"
    /// A regex trigger: completed from its literal start, or offered by ask only when it has none.
    case espansoRegex = "espanso-regex"
    /// A match with no trigger: offered by ask only.
    case espansoNoTrigger = "espanso-no-trigger"
    /// A `replace`, `markdown`, `html` or `form` value that is not text: the match is skipped.
    case espansoReplace = "espanso-replace"
    /// A match that inserts an image (`image_path`): skipped.
    case espansoImage = "espanso-image"
    /// A match with nothing to insert: skipped.
    case espansoNoReplace = "espanso-no-replace"
    /// A `{{name}}` no variable of the match, its file or its imports defines: espanso refuses to expand the match
    /// (unless another match file defines it in `global_vars`); a placeholder.
    case espansoUndefinedVariable = "espanso-undefined-variable"
    /// A variable that uses itself: a placeholder there.
    case espansoVariableLoop = "espanso-variable-loop"
    /// A file whose matches expand to more than 8 times its size (plus 64 KiB): the rest become placeholders.
    case espansoExpansionLimit = "espanso-expansion-limit"
    /// A `random` variable: inserted as its first choice.
    case espansoRandom = "espanso-random"
    /// A `match` variable naming a trigger no match of the file or its imports has: espanso refuses to expand the
    /// match; a placeholder.
    case espansoMatchNotFound = "espanso-match-not-found"
    /// An `echo` variable without its `echo` text, or a `random` one without `choices`: espanso refuses to expand
    /// the match; a placeholder.
    case espansoMissingParam = "espanso-missing-param"
    /// A variable type this server does not read: its references become placeholders.
    case espansoVariableType = "espanso-variable-type"
    /// An `uppercase_style` espanso does not know, or one without `propagate_case: true` (espanso warns of both): the
    /// body is upper-cased, or inserted as written.
    case espansoUppercaseStyle = "espanso-uppercase-style"
    /// A `date` variable with a locale: the editor writes month and day names in its own language.
    case espansoDateLocale = "espanso-date-locale"
    /// A `date` variable with no LSP equivalent: a placeholder.
    case espansoDateUnmapped = "espanso-date-unmapped"
    /// A `markdown` replacement: inserted as its Markdown text, not rendered.
    case espansoMarkdown = "espanso-markdown"
    /// An `html` replacement: inserted as its HTML text, not rendered.
    case espansoHtml = "espanso-html"
    /// A `shell` variable: never run; a placeholder to fill in.
    case espansoShellNotRun = "espanso-shell-not-run"
    /// A `script` variable: never run; a placeholder to fill in.
    case espansoScriptNotRun = "espanso-script-not-run"

    // MARK: Learned words (`LearnedWords.load`)

    /// A learned-words file that is not valid JSON.
    case learnedSyntax = "learned-syntax"
    /// A learned-words file of the wrong shape.
    case learnedShape = "learned-shape"
    /// A learned-words file over its size limit.
    case learnedTooLarge = "learned-too-large"
    /// A learned-words file that could not be read.
    case learnedUnreadable = "learned-unreadable"
    /// A learned-words key naming a snippet outside its own folder and layer.
    case learnedOutsideFolder = "learned-outside-folder"
    /// Learned words for a snippet that no longer exists.
    case learnedSnippetGone = "learned-snippet-gone"

    /// The raw value, so a code reads the same in text as on the wire.
    public var description: String { rawValue }

    /// The codes that mean a configured library path itself could not be read.
    public static let pathProblems: Set<DiagnosticCode> = [.missingPath, .unusablePath]

    /// Every code `SnippetBody.parse` reports, for documentation and tests.
    public static let bodyProblems: [DiagnosticCode] = [
        .unterminatedPlaceholder, .unterminatedVariable, .unterminatedChoice, .emptyChoice, .invalidTransform,
        .invalidRegex, .backtrackingRegex, .invalidPlaceholder, .invalidVariable, .unknownVariable, .nestingTooDeep, .choiceOnFinalTabstop,
    ]
}
