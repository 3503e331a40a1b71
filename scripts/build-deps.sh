#!/usr/bin/env bash
# Installs what building snippets-lsp needs from Debian: libcurl4-openssl-dev, the headers and link library of the
# libcurl the model client speaks through its C API (Sources/CCurl), also what FoundationNetworking links against in
# the self-contained build. Run by `make build`, `make release`, `make swift-test` and `make static`; does nothing
# when the package is installed. macOS ships libcurl with the SDK: nothing to install there.
set -euo pipefail

if [ "$(uname -s)" = Darwin ]; then exit 0; fi
PACKAGES=(libcurl4-openssl-dev)
if dpkg-query -W -f='${Status}' "${PACKAGES[@]}" 2>/dev/null | grep -q "install ok installed"; then
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    echo "build-deps: apt-get is not available; install the development files of libcurl (curl/curl.h, libcurl.so) yourself" >&2
    exit 1
fi
SUDO=()
if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi
echo "build-deps: apt-get install ${PACKAGES[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
