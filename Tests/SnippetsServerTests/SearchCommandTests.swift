import Testing
@testable import SnippetsServer

@Suite struct SearchCommandTests {
    @Test func placeholder() {
        #expect(SearchCommand.name == "search")
    }
}
