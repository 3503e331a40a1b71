#!/usr/bin/env bash
# Installs what linking a self-contained snippets-lsp needs from Debian: libcurl4-openssl-dev (FoundationNetworking,
# linked statically by --static-swift-stdlib, links against libcurl). Run by `make static`.
set -euo pipefail

PACKAGES=(libcurl4-openssl-dev)
if dpkg-query -W -f='${Status}' "${PACKAGES[@]}" 2>/dev/null | grep -q "install ok installed"; then
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    echo "static-deps: apt-get is not available; install the development files of libcurl (OpenSSL flavour) yourself" >&2
    exit 1
fi
SUDO=()
if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi
echo "static-deps: apt-get install ${PACKAGES[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
