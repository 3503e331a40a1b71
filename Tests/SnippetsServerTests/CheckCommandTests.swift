import Testing
@testable import SnippetsServer
