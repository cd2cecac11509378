#!/bin/sh
# setup.sh installs what the tests of the command run besides Go, from
# Debian's packages when run as root: Chromium for the report's browser
# test (TestReportBrowser), zsh and fish for the completion scripts'
# (TestCompletionZshFish). Without them those tests skip and say why;
# .ci/run sets POLLFIT_REQUIRE_BROWSER so that the browser test fails
# instead.
#
#   sh testdata/setup.sh
set -eu
missing=""
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v zsh >/dev/null 2>&1 || missing="$missing zsh"
command -v fish >/dev/null 2>&1 || missing="$missing fish"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	. "$(dirname "$0")/apt.sh"
	# shellcheck disable=SC2086
	apt_install $missing
else
	echo "testdata/setup.sh:$missing not found and not root: their tests will skip" >&2
fi
