#!/usr/bin/env bash
# Lints the CI workflows and .spi.yml with yamllint (configuration: .yamllint) and checks the
# workflows' shape (Scripts/check-workflows.py). A missing yamllint is installed: the Debian
# package where there is dpkg, otherwise from PyPI into the user's site-packages; if that
# fails too (an externally managed Python, no network) the lint is skipped with a notice.
set -euo pipefail
cd "$(dirname "$0")/.."
files=(.yamllint .spi.yml .github/workflows/*.yml)

has_yamllint() { command -v yamllint >/dev/null 2>&1 || python3 -c 'import yamllint' >/dev/null 2>&1; }
if ! has_yamllint; then
    if command -v dpkg >/dev/null 2>&1; then
        bash Scripts/install-system-packages.sh yamllint
    else
        python3 -m pip install --user --quiet yamllint || true
    fi
fi
if command -v yamllint >/dev/null 2>&1; then
    yamllint --strict "${files[@]}"
    echo "lint-yaml.sh: ${#files[@]} YAML files pass yamllint"
elif python3 -c 'import yamllint' >/dev/null 2>&1; then
    python3 -m yamllint --strict "${files[@]}"
    echo "lint-yaml.sh: ${#files[@]} YAML files pass yamllint"
else
    echo "lint-yaml.sh: yamllint skipped: not installed, and pip could not install it (pip install yamllint)"
fi
python3 Scripts/check-workflows.py .github/workflows/*.yml
