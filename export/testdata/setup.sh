#!/bin/sh
# setup.sh installs the tools that export's tests run generated code with:
# TypeScript (tsc, from npm; Node.js itself must be on PATH) and Kotlin
# (kotlinc, from Debian's packages, when run as root). Without them the
# tests that compile TypeScript or Kotlin skip and say why.
#
#   sh export/testdata/setup.sh
#
# tsc goes to $POLLFIT_TOOLS (default $HOME/.cache/pollfit-tools), where
# the tests look for node_modules/.bin/tsc. No Swift compiler is packaged
# for this Debian release, so Swift output is checked by golden file only.
set -eu
tools=${POLLFIT_TOOLS:-$HOME/.cache/pollfit-tools}
if command -v npm >/dev/null 2>&1; then
	mkdir -p "$tools"
	npm install --no-audit --no-fund --silent --prefix "$tools" typescript@5.9.3
else
	echo "setup.sh: npm not found: TypeScript tests will skip" >&2
fi
if ! command -v kotlinc >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kotlin >/dev/null
	else
		echo "setup.sh: kotlinc not found and not root: Kotlin tests will skip" >&2
	fi
fi
