#!/bin/sh
# setup.sh installs the tools that the tests run generated code with:
# TypeScript (tsc), prettier and ajv from npm (Node.js itself must be on
# PATH), and Kotlin (kotlinc) with kotlinx-coroutines from Debian's
# packages, when run as root. Without them the tests that need them skip
# and say why.
#
#   sh export/testdata/setup.sh
#
# The npm packages go to $POLLFIT_TOOLS (default $HOME/.cache/pollfit-tools),
# where the tests look for node_modules/.bin/tsc, node_modules/.bin/prettier
# and node_modules/ajv. No Swift compiler is packaged for this Debian
# release, so Swift output is checked by golden file and lexer only.
set -eu
tools=${POLLFIT_TOOLS:-$HOME/.cache/pollfit-tools}
if command -v npm >/dev/null 2>&1; then
	mkdir -p "$tools"
	npm install --no-audit --no-fund --silent --prefix "$tools" typescript@5.9.3 prettier@3.10.1 ajv@8.20.0
else
	echo "setup.sh: npm not found: TypeScript, prettier and ajv tests will skip" >&2
fi
need=""
command -v kotlinc >/dev/null 2>&1 || need="kotlin"
[ -f /usr/share/java/kotlinx-coroutines-core.jar ] || need="$need libkotlinx-coroutines-java"
[ -f /usr/share/java/atomicfu.jar ] || need="$need libkotlinx-atomicfu-java"
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		. "$(dirname "$0")/../../testdata/apt.sh"
		# shellcheck disable=SC2086
		apt_install $need
	else
		echo "setup.sh: $need missing and not root: Kotlin tests will skip" >&2
	fi
fi
