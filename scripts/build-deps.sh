#!/usr/bin/env bash
# Installs what building snippets-lsp needs from Debian: libcurl4-openssl-dev, for curl/curl.h only (the model client
# opens libcurl with dlopen at its first request, Sources/CCurlLoader, so nothing links it; a model needs the runtime
# libcurl4, which the -dev package depends on); and libopenblas0-pthread, whose cblas_sgemm the sentence encoder
# (Sources/SnippetsEncoder) loads with dlopen at first use (no link-time dependency; without it the encoder runs its
# slower pure-Swift matmul). Run by `make build`, `make release`, `make swift-test` and `make static`; does nothing
# when the package is installed. macOS ships libcurl with the SDK: nothing to install there.
set -euo pipefail

if [ "$(uname -s)" = Darwin ]; then exit 0; fi
PACKAGES=(libcurl4-openssl-dev libopenblas0-pthread)
# Each package on its own: one installed package must not hide another that is missing.
MISSING=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || MISSING+=("$package")
done
if [ ${#MISSING[@]} -eq 0 ]; then
    exit 0
fi
PACKAGES=("${MISSING[@]}")
if ! command -v apt-get >/dev/null; then
    echo "build-deps: apt-get is not available; install ${PACKAGES[*]} (libcurl's curl/curl.h; OpenBLAS) yourself" >&2
    exit 1
fi
SUDO=()
if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi
echo "build-deps: apt-get install ${PACKAGES[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
