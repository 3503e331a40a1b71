import Foundation
import SnippetsServer

// Thin entry point: everything a test would want to reach lives in SnippetsServer.
let status = await CommandLineTool.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
