/// yasnippet's major modes as LSP language identifiers: the one table (`languageIDs`) and the rules around it.
///
/// A yasnippet library keeps one folder per Emacs major mode (`snippets/python-mode/`). An LSP client names the
/// document's language instead, and editors name it differently: VS Code and lsp-mode send `cpp`, eglot sends the
/// mode's name without `-ts-mode` / `-mode` (`c++`, `emacs-lisp`) unless its `eglot-server-programs` entry says
/// otherwise (`javascript` for `js-mode`, `typescriptreact` for `tsx-ts-mode`), Neovim sends its filetype (`sh`,
/// `cs`, `tex`), Helix its language name (`bash`). A mode's snippets get every identifier of its row, VS Code's
/// first (that one names the language wherever one is shown).
///
/// - `fundamental-mode` is every mode's ancestor in yasnippet (`yas--all-parents`), so its snippets apply in every
///   language; `text-mode` too (issue 22 asks for it; yasnippet offers them only in modes derived from `text-mode`,
///   but the server cannot tell which of a client's language identifiers are prose, and prose is what people keep
///   there).
/// - `prog-mode` is the scope `prog-mode`, which every programming language of the table extends (every row but the
///   prose and markup modes in `textModes`, which Emacs derives from `text-mode`): a language no row names does not
///   get `prog-mode`'s snippets.
/// - `sharedModes` (`cc-mode`, `c-lang-common`) hold snippets other modes pull in through `.yas-parents`; no client
///   sends their names, so each is a scope of its own name that only those modes reach.
/// - A mode the table does not name gets eglot's identifier for it (`zig-mode` → `zig`).
public enum YasnippetModes {
    /// Language identifiers per major mode, VS Code's first, then what other editors send where it differs.
    public static let languageIDs: [String: [String]] = [
        "ada-mode": ["ada"], "ada-ts-mode": ["ada"],
        "apples-mode": ["applescript"], "applescript-mode": ["applescript"],
        "bazel-mode": ["starlark", "bazel"],
        "bibtex-mode": ["bibtex"],
        "c-mode": ["c"], "c-ts-mode": ["c"],
        "c++-mode": ["cpp", "c++"], "c++-ts-mode": ["cpp", "c++"],
        "clojure-mode": ["clojure"], "clojure-ts-mode": ["clojure"],
        "cmake-mode": ["cmake"], "cmake-ts-mode": ["cmake"],
        "cperl-mode": ["perl"], "perl-mode": ["perl"],
        "csharp-mode": ["csharp", "cs"], "csharp-ts-mode": ["csharp", "cs"],
        "css-mode": ["css"], "css-ts-mode": ["css"],
        "dockerfile-mode": ["dockerfile"], "dockerfile-ts-mode": ["dockerfile"],
        "elixir-mode": ["elixir"], "elixir-ts-mode": ["elixir"],
        "emacs-lisp-mode": ["emacs-lisp", "elisp"], "lisp-interaction-mode": ["emacs-lisp", "elisp"],
        "enh-ruby-mode": ["ruby"], "ruby-mode": ["ruby"], "ruby-ts-mode": ["ruby"],
        "ensime-mode": ["scala"], "scala-mode": ["scala"], "scala-ts-mode": ["scala"],
        "f90-mode": ["fortran"],
        "git-commit-mode": ["git-commit", "gitcommit"],
        "go-mode": ["go"], "go-ts-mode": ["go"],
        "haskell-mode": ["haskell"], "haskell-ts-mode": ["haskell"],
        "html-mode": ["html"], "html-ts-mode": ["html"], "web-mode": ["html"],
        "java-mode": ["java"], "java-ts-mode": ["java"], "malabar-mode": ["java"],
        "js-mode": ["javascript"], "js-ts-mode": ["javascript"], "js2-mode": ["javascript"],
        "js3-mode": ["javascript"],
        "rjsx-mode": ["javascriptreact", "javascript"],
        "julia-mode": ["julia"], "julia-ts-mode": ["julia"],
        "kotlin-mode": ["kotlin"], "kotlin-ts-mode": ["kotlin"],
        "latex-mode": ["latex", "tex"],
        "lisp-mode": ["lisp", "commonlisp"],
        "lua-mode": ["lua"], "lua-ts-mode": ["lua"],
        "makefile-mode": ["makefile", "make"], "makefile-gmake-mode": ["makefile", "make"],
        "makefile-automake-mode": ["makefile", "make"], "makefile-bsdmake-mode": ["makefile", "make"],
        "markdown-mode": ["markdown"], "markdown-ts-mode": ["markdown"], "gfm-mode": ["markdown"],
        "nix-mode": ["nix"], "nix-ts-mode": ["nix"],
        "nxml-mode": ["xml"],
        "org-mode": ["org"],
        "php-mode": ["php"], "php-ts-mode": ["php"],
        "powershell-mode": ["powershell", "ps1"],
        "protobuf-mode": ["proto", "proto3"],
        "python-mode": ["python"], "python-ts-mode": ["python"],
        "rst-mode": ["restructuredtext", "rst"],
        "rust-mode": ["rust"], "rust-ts-mode": ["rust"], "rustic-mode": ["rust"],
        "sh-mode": ["shellscript", "sh", "bash"], "sh-ts-mode": ["shellscript", "sh", "bash"],
        "bash-ts-mode": ["shellscript", "sh", "bash"],
        "sql-mode": ["sql"],
        "swift-mode": ["swift"], "swift-ts-mode": ["swift"],
        "terraform-mode": ["terraform"],
        "tsx-ts-mode": ["typescriptreact"], "typescriptreact-mode": ["typescriptreact"],
        "tuareg-mode": ["ocaml"], "typerex-mode": ["ocaml"], "caml-mode": ["ocaml"], "ocaml-ts-mode": ["ocaml"],
        "typescript-mode": ["typescript"], "typescript-ts-mode": ["typescript"],
        "yaml-mode": ["yaml"], "yaml-ts-mode": ["yaml"],
        "zig-mode": ["zig"],
        // Where eglot's rule already gives VS Code's identifier: listed so that they get `prog-mode`'s snippets.
        "antlr-mode": ["antlr"], "coq-mode": ["coq"], "crystal-mode": ["crystal"], "d-mode": ["d"],
        "dart-mode": ["dart"], "easycrypt-mode": ["easycrypt"], "erlang-mode": ["erlang"], "faust-mode": ["faust"],
        "fish-mode": ["fish"], "gdscript-mode": ["gdscript"], "groovy-mode": ["groovy"], "hy-mode": ["hy"],
        "m4-mode": ["m4"], "nasm-mode": ["nasm"], "nesc-mode": ["nesc"], "nim-mode": ["nim"], "nsis-mode": ["nsis"],
        "octave-mode": ["octave"], "odin-mode": ["odin"], "racket-mode": ["racket"], "raku-mode": ["raku"],
        "reason-mode": ["reason"], "vhdl-mode": ["vhdl"],
    ]

    /// Modes whose snippets apply in every language.
    public static let universalModes: Set<String> = ["fundamental-mode", "text-mode"]

    /// The mode whose snippets apply in every programming language of the table.
    public static let programmingMode = "prog-mode"

    /// Folders of snippets that other modes pull in through `.yas-parents`, named by no client.
    public static let sharedModes: Set<String> = ["cc-mode", "c-lang-common"]

    /// Rows of `languageIDs` Emacs derives from `text-mode` (prose and markup): they do not get `prog-mode`'s
    /// snippets.
    public static let textModes: Set<String> = [
        "bibtex-mode", "git-commit-mode", "html-mode", "html-ts-mode", "web-mode", "latex-mode", "markdown-mode",
        "markdown-ts-mode", "gfm-mode", "nxml-mode", "org-mode", "rst-mode", "yaml-mode", "yaml-ts-mode",
    ]

    /// The scopes a mode's snippets get: empty for every language, `prog-mode` or a shared folder's own name, the
    /// table's identifiers, else eglot's identifier for the mode.
    public static func scopes(ofMode mode: String) -> [String] {
        if universalModes.contains(mode) { return [] }
        if mode == programmingMode || sharedModes.contains(mode) { return [mode] }
        if let ids = languageIDs[mode] { return ids }
        return [eglotLanguageID(ofMode: mode)]
    }

    /// What eglot sends for a mode it has no `:language-id` for: the name without `-ts-mode` or `-mode`
    /// (`eglot--lookup-mode`).
    public static func eglotLanguageID(ofMode mode: String) -> String {
        for suffix in ["-ts-mode", "-mode"] where mode.hasSuffix(suffix) && mode.count > suffix.count {
            return String(mode.dropLast(suffix.count))
        }
        return mode
    }

    /// Whether a folder name is a major mode's (`*-mode`) or one of the shared folders.
    public static func isModeFolder(_ name: String) -> Bool {
        (name.hasSuffix("-mode") && name.count > 5) || sharedModes.contains(name)
    }

    /// The `extensions` a mode's `.yas-parents` gives (each of the mode's scopes pulls in each parent's), leaving
    /// out what applies everywhere anyway and a scope extending itself (`python-ts-mode` → `python-mode`).
    public static func extensions(ofMode mode: String, parents: [String]) -> [String: [String]] {
        let own = scopes(ofMode: mode)
        let pulled = parents.flatMap(scopes(ofMode:))
        var result: [String: [String]] = [:]
        // De-duplicated through sets: a `.yas-parents` of many names costs their count, not its square.
        let ownSet = Set(own)
        var seen: Set<String> = []
        let unique = pulled.filter { !ownSet.contains($0) && seen.insert($0).inserted }
        for scope in own where !unique.isEmpty { result[scope] = unique }
        return result
    }

    /// Every programming language of the table extending `prog-mode`: the `extensions` a `prog-mode` snippet file
    /// carries, so its snippets reach them.
    public static let programmingExtensions: [String: [String]] = {
        var result: [String: [String]] = [:]
        for (mode, ids) in languageIDs where !textModes.contains(mode) {
            for id in ids { result[id] = [programmingMode] }
        }
        return result
    }()
}
