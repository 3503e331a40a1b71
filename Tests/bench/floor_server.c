/* The floor of Tests/bench/neovim_startup.py: a language server that does nothing but answer, at once.
 *
 * It speaks just enough LSP for Neovim's client (Content-Length framing on stdin/stdout): `initialize` gets a
 * completion provider, `textDocument/completion` one item labelled "def", every other request a null result,
 * notifications nothing, and `exit` ends it. Spawned by the same plugin and set-up as snippets-lsp, the time to its
 * first completion is what the client, the pipes and a process start cost: what no server can go under. Built by
 * the benchmark with the system's C compiler into .build/bench; never part of the product.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *read_message(void) {
    char line[8192];
    long length = -1;
    for (;;) {
        if (!fgets(line, sizeof line, stdin)) return NULL;
        if (strcmp(line, "\r\n") == 0 || strcmp(line, "\n") == 0) break;
        if (strncasecmp(line, "Content-Length:", 15) == 0) length = strtol(line + 15, NULL, 10);
    }
    if (length < 0 || length > (64L << 20)) return NULL;
    char *body = malloc((size_t)length + 1);
    if (!body || fread(body, 1, (size_t)length, stdin) != (size_t)length) return NULL;
    body[length] = '\0';
    return body;
}

/* The raw JSON text of the top-level "id" member (a number or a string), or NULL for a notification. Good enough for
 * what Neovim sends: ids are numbers, and "id" appears before any nested object that could hold one. */
static const char *request_id(const char *body, char *id, size_t size) {
    const char *at = strstr(body, "\"id\":");
    if (!at) return NULL;
    at += 5;
    while (*at == ' ') at++;
    size_t n = 0;
    if (*at == '"') {
        id[n++] = *at++;
        while (*at && *at != '"' && n < size - 2) id[n++] = *at++;
        id[n++] = '"';
    } else {
        while (*at && (*at == '-' || (*at >= '0' && *at <= '9')) && n < size - 1) id[n++] = *at++;
    }
    id[n] = '\0';
    return n ? id : NULL;
}

static void reply(const char *id, const char *result) {
    char body[1024];
    int length = snprintf(body, sizeof body, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}", id, result);
    printf("Content-Length: %d\r\n\r\n%s", length, body);
    fflush(stdout);
}

int main(void) {
    char *body;
    char id[64];
    while ((body = read_message())) {
        int is_request = strstr(body, "\"method\":") != NULL && request_id(body, id, sizeof id) != NULL;
        if (strstr(body, "\"method\":\"exit\"")) return 0;
        if (is_request) {
            if (strstr(body, "\"method\":\"initialize\""))
                reply(id, "{\"capabilities\":{\"textDocumentSync\":2,\"completionProvider\":{\"triggerCharacters\":[]}},"
                          "\"serverInfo\":{\"name\":\"floor\"}}");
            else if (strstr(body, "\"method\":\"textDocument/completion\""))
                reply(id, "{\"isIncomplete\":false,\"items\":[{\"label\":\"def\",\"kind\":15,\"insertText\":\"def\"}]}");
            else
                reply(id, "null");
        }
        free(body);
    }
    return 0;
}
