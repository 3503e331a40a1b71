/// Where yasnippet files are: a snippets folder holds one folder per major mode (`snippets/python-mode/`), and every
/// file in a mode folder, or in a folder inside it (yasnippet's groups), is one snippet of that mode, whatever its
/// name (`for`, `inc.1`, `class.yasnippet`), except hidden files, `#autosave#` and `backup~` files (`yas--subdirs`)
/// and files another format claims by extension (`.json`, `.code-snippets`, `.snippets`, `.snippet`).
///
/// A mode folder is a folder whose name ends in `-mode` or is one of `YasnippetModes.sharedModes`, wherever it is in
/// the library path (the library path itself included): yasnippet reads the mode folders of each `yas-snippet-dirs`
/// entry, and a library holds such an entry anywhere (`snippets/python-mode/`, `yas/text-mode/`). Below a mode
/// folder, every folder is a group of that mode (`python-mode/django-mode/` holds python-mode snippets), so a file's
/// mode is the outermost mode folder it lies in.
/// `.yas-parents` in a mode folder names its parents; `.yas-ignore-filenames-as-triggers` makes the files of its
/// folder take no trigger from their names; a folder holding `.yas-skip` is not read (as yasnippet skips it).
/// `.yas-setup.el` and `.yas-compiled-snippets.el` are Emacs Lisp and never read.
public enum YasnippetPlace {
    public static let parentsFileName = ".yas-parents"
    public static let ignoreFilenamesMarker = ".yas-ignore-filenames-as-triggers"
    public static let skipMarker = ".yas-skip"

    /// How the file at `path` is read when it is a yasnippet file found walking `root`; nil when it is not one.
    public static func context(forFileAt path: String, root: String) -> SnippetFileContext? {
        let name = LibraryPath.name(path)
        let directory = LibraryPath.parent(path)
        guard let mode = mode(ofDirectory: directory, root: root) else { return nil }
        if name == parentsFileName {
            // Only the mode folder's own `.yas-parents` counts (`yas--compute-major-mode-and-parents`).
            guard LibraryPath.name(directory) == mode else { return nil }
        } else if name.hasPrefix(".") || name.hasSuffix("~") || (name.count >= 2 && name.hasPrefix("#") && name.hasSuffix("#")) {
            return nil
        }
        var context = SnippetFileContext(format: .yasnippet, scopes: YasnippetModes.scopes(ofMode: mode))
        context.mode = mode
        return context
    }

    /// What a folder's markers say: `.yas-skip` skips a mode folder (or a folder in one), and
    /// `.yas-ignore-filenames-as-triggers` keeps the names of the files under it from being triggers.
    static func directoryRule(_ directory: String, names: [String], root: String) -> DirectoryRule? {
        let skips = names.contains(skipMarker)
        let keyless = names.contains(ignoreFilenamesMarker)
        guard skips || keyless, mode(ofDirectory: directory, root: root) != nil else { return nil }
        var rule = DirectoryRule(skips: skips)
        if keyless {
            rule.changes.append((.yasnippet, { context in
                var changed = context
                changed.namesAreTriggers = false
                return changed
            }))
        }
        return rule
    }

    /// The mode of the folder `directory` found walking `root`, when it is a mode folder or inside one: the outermost
    /// mode folder from `root` (included) down to `directory`.
    public static func mode(ofDirectory directory: String, root: String) -> String? {
        let normalizedRoot = LibraryPath.normalize(root)
        var current = LibraryPath.normalize(directory)
        var outermost: String?
        while true {
            let name = LibraryPath.name(current)
            if YasnippetModes.isModeFolder(name) { outermost = name }
            if current == normalizedRoot || current == "/" || current == "." { return outermost }
            current = LibraryPath.parent(current)
        }
    }
}
