/// The options that choose the snippet library, declared once for every command that reads one.
public enum LibraryOptions {
    /// `--library PATH`, repeatable.
    public static let library = CommandOption(
        "--library", value: .text(placeholder: "PATH"), repeatable: true,
        help: "A snippet file or directory, or NAME=PATH (NAME names the layer; unnamed, a layer is named after its "
            + "folder); repeat for several, in precedence order (the first that defines a trigger wins). Without it: "
            + "the paths in SNIPPETS_LIBRARY (separated by ':'), else $XDG_CONFIG_HOME/snippets (~/.config/snippets).")

    /// `--read-only NAME`, repeatable: a layer that is never written.
    public static let readOnly = CommandOption(
        "--read-only", value: .text(placeholder: "NAME"), repeatable: true,
        help: "The layer NAME is never written (a team checkout); repeat for several. Also $SNIPPETS_READ_ONLY "
            + "(names separated by ':' or ',').")

    /// `--library` alone: what commands that only read the library take.
    public static let options = CommandOptions([library])

    /// `--library` and `--read-only`: what the server takes.
    public static let layered = CommandOptions([library, readOnly])

    /// The library paths `arguments` give (`--library`, else the environment and the default folder), with the
    /// layers `--read-only` names marked so.
    public static func paths(from arguments: ParsedArguments, environment: [String: String]) -> LibraryPaths {
        LibraryPaths.resolve(
            flags: arguments.values(library.name), environment: environment,
            readOnly: arguments.declares(readOnly.name) ? arguments.values(readOnly.name) : [])
    }
}
