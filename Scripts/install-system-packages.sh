#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the build needs, when they are missing, and any further
# packages named as arguments (Scripts/test.sh adds the tools of its checks).
# On macOS it installs nothing: the SDK ships sqlite3, curl is not needed (URLSession) and Yams
# compiles its own libyaml.
set -euo pipefail
if [ "$(uname -s)" = Darwin ]; then
  exit 0
fi
packages=(libsqlite3-dev libcurl4-openssl-dev libyaml-dev "$@")
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "Installing: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
