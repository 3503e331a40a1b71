#!/usr/bin/env bash
# Installs the Emacs the editor tests drive, from Debian: emacs-nox with eglot, lsp-mode, company, yasnippet and markdown-mode.
# Run by `make emacs-test` (part of `make test`), so a fresh CI machine gets them. Exits 0 and prints why when apt
# is not available (not Debian, or not root and no sudo), so the caller can skip the Emacs tests with that reason.
set -euo pipefail

PACKAGES=(emacs-nox elpa-eglot elpa-lsp-mode elpa-company elpa-yasnippet elpa-markdown-mode)

have_all() {
    command -v emacs >/dev/null || return 1
    for package in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || return 1
    done
}

if have_all; then
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    echo "emacs-deps: apt-get is not available here; cannot install ${PACKAGES[*]}" >&2
    exit 3
fi
SUDO=()
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        SUDO=(sudo -n)
    else
        echo "emacs-deps: not root and no password-less sudo; cannot apt-get install ${PACKAGES[*]}" >&2
        exit 3
    fi
fi
echo "emacs-deps: apt-get install ${PACKAGES[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
have_all
